"""Activity: who contributed, how much was merged, how much waits for review."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from digest.analysis.types import Activity, Lists
from digest.models import Comment, Item, ItemState

TOP_CONTRIBUTORS = 5
FIRST_TIME = frozenset({"FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER"})


def activity(found: Lists, comments: Sequence[Comment], limit: int = TOP_CONTRIBUTORS) -> Activity:
    """Contributors, merge rate and review load of a window.

    ``comments`` are the comments posted in the window. A contributor's count is the items they
    opened in the window plus their PRs merged in it; bots are not counted as contributors.
    """
    new_items = [*found.new_issues, *found.new_prs]
    human_new = [item for item in new_items if not item.author_is_bot]
    tally: Counter[str] = Counter(item.author for item in human_new)
    tally.update(item.author for item in found.merged_prs if not item.author_is_bot)
    human = [c for c in comments if not c.author_is_bot]
    merged, unmerged = len(found.merged_prs), len(found.closed_unmerged_prs)
    first_time: dict[str, None] = {}
    for item in sorted(human_new, key=lambda i: i.number):
        if item.author_association.upper() in FIRST_TIME:
            first_time.setdefault(item.author, None)
    ranked = sorted(tally.items(), key=lambda entry: (-entry[1], entry[0].lower()))
    return Activity(
        authors=len({item.author for item in human_new}),
        commenters=len({c.author for c in human}),
        comments=len(human),
        bot_comments=len(comments) - len(human),
        merge_rate=merged / (merged + unmerged) if merged + unmerged else 0.0,
        open_new_prs=sum(1 for pr in found.new_prs if pr.state is ItemState.OPEN),
        top_contributors=tuple(ranked[:limit]),
        first_time=tuple(first_time),
        review_comments=sum(1 for c in human if c.is_review),
    )


def is_stale_close(item: Item) -> bool:
    """Whether a closed issue was closed as not planned or stale rather than resolved."""
    labels = {label.lower() for label in item.labels}
    return item.state_reason == "not_planned" or "stale" in labels
