"""The template writer: a complete, deterministic report from the data alone, no network.

The sections load with the first report written: a digest answered from the cache needs none.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from digest.models import Lang
from digest.writers.base import Written

if TYPE_CHECKING:
    from digest.analysis.types import Analysis
    from digest.models import Section

NAME = "template"


class TemplateWriter:
    """Writes every section from counts, topics, titles, labels and comment excerpts."""

    name = NAME

    def sections(self, analysis: Analysis, lang: Lang) -> tuple[Section, ...]:
        """Every section, in report order."""
        from digest.writers.template.context import context
        from digest.writers.template.report import section_ids, write_section

        ctx = context(analysis, lang)
        return tuple(write_section(sid, ctx) for sid in section_ids(analysis))

    async def write(self, analysis: Analysis, lang: Lang) -> Written:
        # plain computation: off the event loop, which goes on serving
        return Written(sections=await asyncio.to_thread(self.sections, analysis, lang))
