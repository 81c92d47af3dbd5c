"""Sibling pull requests: two versions of one change (a follow-up applying the same change
elsewhere, a "v2", a superseding PR, or the same description), to be shown together."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from digest.analysis.text import strip_tags
from digest.models import Item, ItemKey

_POINTER = re.compile(
    r"\b(?:follow[- ]?up (?:on|to|of)|supersedes|superseded by|replaces|replaced by|v2 of"
    r"|same (?:change|fix) as|split from|port(?:ed)? (?:of|from)|alternative to|reland of)"
    r"\W{0,4}(?:https?://\S+?/(?:pull|issues)/|#)(\d+)",
    re.I,
)
_VERSION = re.compile(r"\b(?:v\d+|take \d+|attempt \d+|wip|draft)\b", re.I)
_WORD = re.compile(r"[a-z0-9]+")
SAME_BODY = 0.8  # word-set overlap of two descriptions that say the same
BODY_WORDS = 15  # the fewest words a description needs for that comparison
SIBLINGS_LIMIT = 3  # siblings named per PR, the nearest numbers first


def _title_key(item: Item) -> str:
    return " ".join(_WORD.findall(_VERSION.sub(" ", strip_tags(item.title).lower())))


def _words(item: Item) -> frozenset[str]:
    return frozenset(_WORD.findall(item.body_excerpt.lower()))


def siblings(items: Sequence[Item]) -> Mapping[ItemKey, tuple[ItemKey, ...]]:
    """For each PR of ``items`` that has any, its siblings among ``items`` (of its own
    repository)."""
    by_repo: dict[str, list[Item]] = {}
    for item in items:
        by_repo.setdefault(item.repo, []).append(item)
    return {
        ItemKey(repo, number): tuple(ItemKey(repo, n) for n in found)
        for repo, group in by_repo.items()
        for number, found in _siblings(group).items()
    }


def _siblings(items: Sequence[Item]) -> Mapping[int, tuple[int, ...]]:
    """For each PR of ``items`` (of one repository) that has any, the numbers of its
    siblings among ``items``."""
    prs = [item for item in items if item.is_pr]
    known = {item.number for item in items}
    pairs: set[tuple[int, int]] = set()
    for item in prs:
        for match in _POINTER.finditer(item.body_excerpt):
            other = int(match[1])
            if other in known and other != item.number:
                pairs.add((min(item.number, other), max(item.number, other)))
    keys: dict[str, list[Item]] = {}
    for item in prs:
        keys.setdefault(_title_key(item), []).append(item)
    for same in keys.values():  # one title, one of them marked as another version ("v2")
        marked = [item for item in same if _VERSION.search(item.title)]
        pairs.update(
            (min(a.number, b.number), max(a.number, b.number))
            for a in marked
            for b in same
            if a.number != b.number
        )
    bodies = [(item.number, _words(item)) for item in prs]
    for i, (a, words_a) in enumerate(bodies):
        for b, words_b in bodies[i + 1 :]:
            if min(len(words_a), len(words_b)) < BODY_WORDS:
                continue
            if len(words_a & words_b) >= SAME_BODY * len(words_a | words_b):
                pairs.add((min(a, b), max(a, b)))
    out: dict[int, list[int]] = {}
    for a, b in sorted(pairs):
        out.setdefault(a, []).append(b)
        out.setdefault(b, []).append(a)
    return {
        number: tuple(sorted(sorted(found, key=lambda n: abs(n - number))[:SIBLINGS_LIMIT]))
        for number, found in out.items()
    }
