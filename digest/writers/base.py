"""The writer interface: turns an analysis into the sections of a digest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from digest.analysis.types import Analysis
from digest.models import Lang, Section, Usage


@dataclass(frozen=True, slots=True)
class Written:
    sections: tuple[Section, ...]
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()


class Writer(Protocol):
    """Writes every section of the report, in order, in ``lang``."""

    name: str

    async def write(self, analysis: Analysis, lang: Lang) -> Written: ...
