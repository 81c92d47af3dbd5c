"""Open items worth watching, each with the reason it deserves attention."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from digest.analysis.substance import Discussion, substance
from digest.analysis.text import title_tags, words, words_in
from digest.analysis.types import WatchItem
from digest.models import Item, ItemKey, ItemState

WATCH_LIMIT = 6
BUSY_COMMENTS = 8
PER_REASON = 3

# Reason codes, most urgent first, and what each weighs against an item's substance.
REASONS = ("blocker", "regression", "crash", "heated", "accuracy", "busy_bug", "rfc", "release_bug")
_URGENCY = dict(zip(REASONS, (8.0, 4.0, 3.5, 3.0, 3.0, 2.5, 2.0, 2.0), strict=True))
_BLOCKER_LABELS = frozenset(
    words(
        "release-blocker|release blocker|blocker|critical|urgent|p0|priority: high"
        "|high priority|high-priority"
    )
)
_CRASH_WORDS = words(
    "crash|crashes|crashed|segfault|segmentation fault|hang|hangs|stuck|deadlock|OOM"
    "|out of memory|illegal memory access|core dumped|NaN"
)
_ACCURACY_WORDS = tuple(
    ["accuracy", "wrong output", "wrong outputs", "incorrect", "garbage", "gibberish"]
)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?:rc\d+)?(?![\w.])")


def _is_bug(item: Item) -> bool:
    labels = {label.lower() for label in item.labels}
    tags = set(title_tags(item.title))
    return "bug" in labels or bool(tags & {"bug", "regression"})


def watch_reason(item: Item, hot: Collection[ItemKey]) -> str | None:
    """The most urgent reason to watch an open ``item``, or ``None``."""
    if item.state is not ItemState.OPEN:
        return None
    labels = {label.lower() for label in item.labels}
    tags = set(title_tags(item.title))
    if labels & _BLOCKER_LABELS:
        return "blocker"
    is_issue = not item.is_pr
    if is_issue and ("regression" in labels or words_in(item.title, ("regression",))):
        return "regression"
    if is_issue and _is_bug(item) and words_in(item.title, _CRASH_WORDS):
        return "crash"
    if item.key in hot:
        return "heated"
    if is_issue and _is_bug(item) and words_in(item.title, _ACCURACY_WORDS):
        return "accuracy"
    if is_issue and _is_bug(item) and item.comments_total >= BUSY_COMMENTS:
        return "busy_bug"
    if "rfc" in labels or "rfc" in tags:
        return "rfc"
    if is_issue and _is_bug(item) and _VERSION.search(item.title):
        return "release_bug"
    return None


def watch_score(watch: WatchItem, talk: Discussion, template: frozenset[str]) -> float:
    """How much an open item deserves attention: its reason's urgency plus its substance (a
    detailed report, discussed by several people, outranks a template left unfilled)."""
    return _URGENCY[watch.reason] + substance(watch.item, talk, template)


def worth_watching(
    items: Sequence[Item],
    hot: Collection[ItemKey] = (),
    talk: Discussion | None = None,
    limit: int = WATCH_LIMIT,
    template: frozenset[str] = frozenset(),
) -> tuple[WatchItem, ...]:
    """Open items with a reason, the most urgent and substantive first.

    No reason takes more than ``PER_REASON`` places while items with other reasons wait.
    """
    said = talk or Discussion()
    found = [WatchItem(item, reason) for item in items if (reason := watch_reason(item, hot))]
    found.sort(key=lambda w: (-watch_score(w, said, template), -w.item.number))
    taken: Counter[str] = Counter()
    first: list[int] = []  # indexes into ``found``: within their reason's share
    rest: list[int] = []
    for index, watch in enumerate(found):
        taken[watch.reason] += 1
        (first if taken[watch.reason] <= PER_REASON else rest).append(index)
    return tuple(found[i] for i in sorted([*first, *rest][:limit]))
