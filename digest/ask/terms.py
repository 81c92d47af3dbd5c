"""Free-text search terms: whole-word, tolerant of spacing and version suffixes.

``Qwen3.5`` matches "Qwen3.5", "qwen 3.5" and "Qwen3.5-VL" but not "Qwen3.50" or "Qwen3.5B";
``Qwen`` matches "Qwen3.5" (a version may follow a name) but not "Qwenlm"; ``Qwen3`` does not
match "Qwen3.5" (another version). Terms in CJK scripts match as substrings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from digest.analysis.text import prose_lines
from digest.models import Item

TITLE_WEIGHT = 3.0
LABEL_WEIGHT = 2.0
BODY_WEIGHT = 1.0

_CHUNK = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]")
_SEPARATOR = r"[\s_-]?"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def is_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character."""
    return _CJK.search(text) is not None


@lru_cache(maxsize=256)
def term_pattern(term: str) -> re.Pattern[str]:
    """The case-insensitive pattern of ``term`` in running text."""
    if is_cjk(term):
        return re.compile(re.escape(term), re.I)
    parts: list[str] = []
    previous = ""
    for chunk in _CHUNK.findall(term.strip()):
        if chunk in " _-":
            if previous and previous != "sep":
                parts.append(_SEPARATOR)
                previous = "sep"
            continue
        if previous and previous != "sep" and (chunk[0].isalnum() and previous[-1].isalnum()):
            parts.append(_SEPARATOR)
        parts.append(re.escape(chunk))
        previous = chunk
    while parts and parts[-1] == _SEPARATOR:
        parts.pop()
    body = "".join(parts) or re.escape(term)
    last = term.strip()[-1:] if term.strip() else ""
    # After a name, a version may follow (Qwen -> Qwen3.5); after a version, no more digits.
    tail = r"(?![A-Za-z])" if last.isalpha() else r"(?![A-Za-z0-9])(?!\.[0-9])"
    return re.compile(rf"(?<![A-Za-z0-9]){body}{tail}", re.I)


def mentions(text: str, term: str) -> bool:
    """Whether ``text`` mentions ``term``."""
    return term_pattern(term).search(text) is not None


@dataclass(frozen=True, slots=True)
class TermMatch:
    """How strongly an item mentions the searched terms."""

    matched: tuple[str, ...]  # the terms found, in the order searched
    score: float


def match_terms(item: Item, terms: Sequence[str]) -> TermMatch:
    """The terms ``item`` mentions in its number, title, labels or description.

    The description counts only in prose outside form sections (test plans, environments,
    logs), so a model named in a benchmark command does not make a PR about that model.
    """
    body = "\n".join(prose_lines(item.body_excerpt))
    labels = " ".join(item.labels)
    matched: list[str] = []
    score = 0.0
    for term in terms:
        if (term.isdigit() and int(term) == item.number) or mentions(item.title, term):
            weight = TITLE_WEIGHT
        elif labels and mentions(labels, term):
            weight = LABEL_WEIGHT
        elif body and mentions(body, term):
            weight = BODY_WEIGHT
        else:
            continue
        matched.append(term)
        score += weight
    return TermMatch(tuple(matched), score)


def needed(count: int) -> int:
    """How many of ``count`` terms an item must mention when none mentions them all."""
    return max(2, -(-count * 3 // 5))
