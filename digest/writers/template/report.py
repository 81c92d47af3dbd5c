"""The template writer's report: its sections, in order, each written from the data alone."""

from __future__ import annotations

from collections.abc import Callable

from digest.analysis.types import Analysis
from digest.i18n import heading
from digest.models import Block, Section
from digest.spans import repeats_shortened
from digest.writers.template import NAME
from digest.writers.template.activity import activity
from digest.writers.template.appendix import appendix_section
from digest.writers.template.context import Context
from digest.writers.template.followups import followups_section
from digest.writers.template.hot import hot_section
from digest.writers.template.key_changes import key_changes_section
from digest.writers.template.summary import summary
from digest.writers.template.topic import topic_section
from digest.writers.template.trends import trends_section
from digest.writers.template.watch import watch_section

_FIXED: dict[str, Callable[[Context], tuple[Block, ...]]] = {
    "summary": summary,
    "followups": followups_section,
    "hot": hot_section,
    "trends": trends_section,
    "key_changes": key_changes_section,
    "activity": activity,
    "watch": watch_section,
    "appendix": appendix_section,
}


def section_ids(analysis: Analysis) -> tuple[str, ...]:
    """The ids of the report's sections, in order: summary, followups (when the previous
    window's items have news), topic:<name>…, hot, …, appendix."""
    topics = tuple(f"topic:{match.topic.name}" for match in analysis.topics)
    follow = ("followups",) if analysis.followups else ()
    return (
        "summary",
        *follow,
        *topics,
        "hot",
        "trends",
        "key_changes",
        "activity",
        "watch",
        "appendix",
    )


def write_section(section_id: str, ctx: Context) -> Section:
    """The section ``section_id`` of the context's analysis, written from the data alone."""
    if section_id.startswith("topic:"):
        name = section_id.split(":", 1)[1]
        match = next((m for m in ctx.analysis.topics if m.topic.name == name), None)
        if match is None:
            raise ValueError(f"no topic {name!r} in this analysis")
        blocks = topic_section(ctx, match)
        title = heading(section_id, ctx.lang, match.topic)
    elif section_id in _FIXED:
        blocks = _FIXED[section_id](ctx)
        title = heading(section_id, ctx.lang)
    else:
        raise ValueError(f"unknown section {section_id!r}")
    if section_id != "appendix":  # the lists name each item in full, list by list
        blocks = repeats_shortened(blocks)
    return Section(id=section_id, title=title, blocks=blocks, writer=NAME)
