"""One section of the template writer's report, written alone."""

from __future__ import annotations

from digest.analysis.types import Analysis
from digest.models import Section
from digest.writers.template.context import context
from digest.writers.template.report import write_section


def template_section(section_id: str, analysis: Analysis, lang: str) -> Section:
    """The section ``section_id`` of the template report of ``analysis`` in ``lang``."""
    return write_section(section_id, context(analysis, lang))
