"""Substance: what a PR or issue says and how much people discussed it, not its title words.

A description's substance is its filled-in part: the lines of a repository's template (a line
found in several bodies of the window), headings, checklists, instructions in capitals,
sign-offs and bare fix references are not counted; a code block counts as a few lines of
prose. Discussion is the human comments of the window, conversation and review alike, and the
distinct people who wrote them.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from digest.analysis.hot import human_comments
from digest.analysis.text import PER_TEXT
from digest.analysis.threads import is_boilerplate
from digest.models import Comment, Item, ItemKey, Window

# A line found in this many bodies of the window is the repository's template.
TEMPLATE_BODIES = 3
CODE_WORDS = 12  # what one code block (a log, a benchmark table, a diff) is worth in words
_HEADING = re.compile(r"^\s*#{1,6}\s")
_CHECKBOX = re.compile(r"^\s*[-*+]\s*\[[ xX]\]")
_RULE = re.compile(r"^\s*([-*_=])\1{2,}\s*$")
_NOTE = re.compile(
    r"^\W*(before submitting|please (fill|provide|describe|read|make sure|add)|"
    r"fix #x+|fixes #x+|signed-off-by|co-authored-by|cc\s+@|essential elements)",
    re.I,
)
_REF_ONLY = re.compile(
    r"^\W*((close[sd]?|fix(e[sd])?|resolve[sd]?|part of|related|see)\W*)*"
    r"((https?://\S+|[\w.-]+/[\w.-]+)?#?\d+\W*)+$",
    re.I,
)
_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_BUMP = re.compile(r"^\s*(\[[^\]]*\]\s*)*(build\(deps\):\s*)?bump\s+\S+\s+from\s+\S+\s+to\s", re.I)
_REVERT = re.compile(r"^\s*(\[[^\]]*\]\s*)*(revert\b|\[revert\])", re.I)
_RELAND = re.compile(r"\b(re-?land|re-?apply|reapply)\b", re.I)
_LOW_LABELS = frozenset({"ready", "stale", "needs-rebase", "unstale", "documentation", "ci/build"})


@dataclass(frozen=True, slots=True)
class Discussion:
    """Human comments in the window, and their distinct authors, per item."""

    comments: Mapping[ItemKey, int] = field(default_factory=dict)
    participants: Mapping[ItemKey, int] = field(default_factory=dict)


def discussion(comments: Iterable[Comment], window: Window) -> Discussion:
    """The human discussion of ``window`` per item (conversation and review comments),
    boilerplate ("LGTM", "rebased", "+1") left out."""
    talk: Counter[ItemKey] = Counter()
    people: defaultdict[ItemKey, set[str]] = defaultdict(set)
    for comment in human_comments(comments, window):
        if is_boilerplate(comment):
            continue
        talk[comment.item_key] += 1
        people[comment.item_key].add(comment.author)
    return Discussion(dict(talk), {n: len(who) for n, who in people.items()})


def _normal(line: str) -> str:
    return " ".join(line.split()).lower()  # runs of whitespace as one space, ends stripped


def template_lines(items: Sequence[Item], bodies: int = TEMPLATE_BODIES) -> frozenset[str]:
    """The lines that appear in at least ``bodies`` descriptions of ``items``: a template."""
    seen: Counter[str] = Counter()
    for item in items:
        seen.update({_normal(line) for line in item.body_excerpt.splitlines() if line.strip()})
    return frozenset(line for line, n in seen.items() if n >= bodies)


def _boilerplate(line: str, template: frozenset[str]) -> bool:
    if _normal(line) in template:
        return True
    if _HEADING.match(line) or _CHECKBOX.match(line) or _RULE.match(line) or _NOTE.match(line):
        return True
    if _REF_ONLY.match(line):
        return True
    letters = [c for c in line if c.isalpha()]
    return len(line.split()) >= 4 and bool(letters) and all(c.isupper() for c in letters)


def description_words(item: Item, template: frozenset[str] = frozenset()) -> int:
    """Words in the filled-in part of ``item``'s description (see the module docstring)."""
    return _description_words(item.body_excerpt, template)


@lru_cache(maxsize=PER_TEXT)
def _description_words(body: str, template: frozenset[str]) -> int:
    total = 0
    for line in body.splitlines():
        if not line.strip() or _boilerplate(line, template):
            continue
        blocks = line.count("[code]")
        prose = line.replace("[code]", " ")
        total += blocks * CODE_WORDS + len(_WORD.findall(_CJK.sub(" ", prose)))
        total += len(_CJK.findall(prose)) // 2
    return total


def words_beyond_title(item: Item, template: frozenset[str] = frozenset()) -> int:
    """Words of the filled-in description that its title does not already say (a code block
    counts as ``CODE_WORDS``): how much the description adds."""
    title = {w.lower() for w in _WORD.findall(item.title)}
    total = 0
    for line in item.body_excerpt.splitlines():
        if not line.strip() or _boilerplate(line, template):
            continue
        total += line.count("[code]") * CODE_WORDS
        prose = _CJK.sub(" ", line.replace("[code]", " "))
        total += sum(1 for w in _WORD.findall(prose) if w.lower() not in title)
        total += len(_CJK.findall(line)) // 2
    return total


def is_dependency_bump(item: Item) -> bool:
    """A bot's or person's ``Bump x from 1 to 2``, or a PR labelled ``dependencies``."""
    labels = {label.lower() for label in item.labels}
    return bool(_BUMP.match(item.title)) or "dependencies" in labels


def is_revert(item: Item) -> bool:
    return bool(_REVERT.match(item.title))


def is_reland(item: Item) -> bool:
    return bool(_RELAND.search(item.title))


def substance(item: Item, talk: Discussion, template: frozenset[str] = frozenset()) -> float:
    """What ``item`` says and how much it was discussed: description, the issues it fixes,
    comments and distinct participants in the window, and its labels."""
    score = min(3.0, description_words(item, template) / 20)
    if item.fixes:
        score += min(2.0, 1.5 + 0.25 * (len(item.fixes) - 1))
    score += min(2.0, 0.2 * talk.comments.get(item.key, 0))
    score += min(1.5, 0.5 * max(0, talk.participants.get(item.key, 0) - 1))
    labels = [label for label in item.labels if label.lower() not in _LOW_LABELS]
    score += min(1.0, 0.25 * len(labels))
    return score
