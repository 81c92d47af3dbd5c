"""The glossary: the repository's domain terms in Chinese (推测解码, 注意力后端, 量化, KV 缓存…).

The built-in entries live in ``glossary.json`` next to this module; the configuration adds to
and overrides them (globally and per repository), and the analysis carries those entries.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Entry:
    """One term: its spellings (whole words, case-insensitive) and its Chinese name."""

    spellings: tuple[str, ...]
    zh: str

    @property
    def en(self) -> str:
        return self.spellings[0]


@cache
def builtin() -> tuple[Entry, ...]:
    """The entries of ``glossary.json``, in file order."""
    raw = json.loads(resources.files(__package__).joinpath("glossary.json").read_text("utf-8"))
    return tuple(
        Entry(tuple(s.strip() for s in key.split("|")), str(zh))
        for key, zh in raw.items()
        if not key.startswith("_")
    )


def entries(extra: Sequence[tuple[str, str]] = ()) -> tuple[Entry, ...]:
    """The built-in entries, then ``extra`` (term, zh) pairs, which win for their spellings."""
    added = tuple(Entry(tuple(s.strip() for s in key.split("|")), zh) for key, zh in extra)
    taken = {s.lower() for entry in added for s in entry.spellings}
    kept = tuple(
        Entry(tuple(s for s in e.spellings if s.lower() not in taken), e.zh) for e in builtin()
    )
    return added + tuple(e for e in kept if e.spellings)


@lru_cache(maxsize=32)
def _pattern(spellings: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True))
    return re.compile(rf"(?<![\w.-])(?:{words})(?![\w-])", re.I)


def found(text: str, glossary: Iterable[Entry]) -> tuple[Entry, ...]:
    """The entries ``text`` names, in glossary order, each once (one per Chinese name); an
    entry whose only mentions overlap an earlier entry's is left out ("fused MoE" is MoE's)."""
    out: dict[str, Entry] = {}
    taken: list[tuple[int, int]] = []
    for entry in glossary:
        if entry.zh in out:
            continue
        spans = [m.span() for m in _pattern(entry.spellings).finditer(text)]
        free = [(a, b) for a, b in spans if not any(a < y and x < b for x, y in taken)]
        if free:
            out[entry.zh] = entry
        taken.extend(spans)
    return tuple(out.values())
