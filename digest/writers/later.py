"""Later fates noted in a digest's sections: beside an item's first link in each, what became
of it after the window closed (:mod:`digest.analysis.fates`): ``(merged 3 days later)``,
``（后于 2026-03-14 作为重复问题关闭）``, ``(fixed 3 days later by #M)`` with ``#M`` a link.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import timedelta

from digest.i18n import t
from digest.models import Inline, ItemRef, Lang, Later, Section, Text, Window, map_spans
from digest.spans import Spans, say
from digest.windows import zone

_HOUR = timedelta(hours=1)
_DAY = timedelta(days=1)


def later_spans(later: Later, window: Window, lang: Lang, url: str = "") -> Spans:
    """The fate as a short phrase: ``merged 3 days later``, ``后于 2026-03-14 作为重复问题关闭``,
    ``fixed 3 days later by #M`` (``#M`` a link, beside the issue at ``url`` and named like it
    when the fate names its repository)."""
    if later.event == "merged" or later.by is not None:
        event = "merged" if later.by is None else "fixed"
        parts: dict[str, ItemRef] = {}
        if later.by is not None:
            parts["by"] = ItemRef(later.by, _pull_url(url, later.by), repo=later.repo)
        gap = later.at - window.end
        if gap < _DAY:
            hours = int(gap / _HOUR)
            if not hours:
                return say(f"later.{event}.soon", lang, **parts)
            return say(f"later.{event}.hours", lang, hours, n=hours, **parts)
        days = int(gap / _DAY)
        return say(f"later.{event}.days", lang, days, n=days, **parts)
    return (Text(later_text(later, window, lang)),)


def _pull_url(url: str, number: int) -> str:
    """PR ``number``'s page in the repository of the item page ``url``."""
    base = url.rstrip("/").rsplit("/", 2)[0] if url.count("/") > 4 else url.rstrip("/")
    return f"{base}/pull/{number}"


def later_text(later: Later, window: Window, lang: Lang) -> str:
    """The fate as a short phrase, as plain text (a fixing PR by its label: ``#M``)."""
    if later.event == "merged" or later.by is not None:
        spans = later_spans(later, window, lang)
        return "".join(s.label if isinstance(s, ItemRef) else getattr(s, "text", "") for s in spans)
    date = later.at.astimezone(zone(window.timezone)).date().isoformat()
    if later.is_pr:
        return t("later.closed.pr", lang, date=date)
    reason = later.reason or ""
    known = ("completed", "not_planned", "duplicate")
    return t(f"later.closed.{reason}" if reason in known else "later.closed", lang, date=date)


def noted(
    sections: Iterable[Section], later: Iterable[Later], window: Window, lang: Lang
) -> tuple[Section, ...]:
    """``sections`` with each later fate noted after the first link to its item in each (a
    fate and a link name their repository alike: both or neither)."""
    fates = {(f.repo, f.number): f for f in later}
    if not fates:
        return tuple(sections)

    def note(fate: Later, link: ItemRef) -> Spans:
        return say("later.note", lang, note=later_spans(fate, window, lang, link.url))

    return tuple(_noted(section, fates, note) for section in sections)


def _noted(
    section: Section,
    fates: Mapping[tuple[str, int], Later],
    note: Callable[[Later, ItemRef], Spans],
) -> Section:
    done: set[tuple[str, int]] = set()

    def spans(given: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for span in given:
            out.append(span)
            if not isinstance(span, ItemRef):
                continue
            key = (span.repo, span.number)
            if key in fates and key not in done:
                done.add(key)
                out.extend(note(fates[key], span))
        return tuple(out)

    return replace(section, blocks=map_spans(section.blocks, spans))
