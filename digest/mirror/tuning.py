"""The sync's tuning: how long it trusts an old window, how far it reads, what it keeps in hand.

The constants bound every part of a sync; the two budgets turn the rate limit GitHub says is
left into the requests a part may spend.
"""

from __future__ import annotations

import math
from datetime import timedelta

# A searched window is trusted this long even without a mirror tracking later changes.
SEARCH_FRESH = timedelta(minutes=10)
# How far back the mirror's rows give a stream's pace, for one a stopped sync did not read.
PACE_SPAN = timedelta(days=7)
# GitHub's hourly limit without a token, when no answer has said the limit yet.
ANONYMOUS_LIMIT = 60
# Requests kept in hand when spending the rate limit on old comments and single items.
RESERVE = 2
# Old-window markers kept in a repository's sync state.
MAX_MARKERS = 32
# Old comments are read this far past the window, to keep those edited soon after posting.
EDIT_SLACK = timedelta(hours=6)
# Pages an old window's comment stream may read before GitHub has said what is left.
UNSAID_PAGES = 20


def old_comment_budget(remaining: int | None, *, share: float, cap: int | None) -> int:
    """Pages an old window's comment stream may read: ``share`` of the ``remaining`` requests
    GitHub says are left (half: 2,500 pages with a fresh token, 30 without one), never the
    last ``RESERVE``; at most ``cap`` when set; ``UNSAID_PAGES`` before GitHub has said."""
    if remaining is None:
        return cap if cap is not None else UNSAID_PAGES
    scaled = max(1, math.ceil(remaining * share)) if remaining > RESERVE else 0
    budget = min(scaled, remaining - RESERVE)
    return budget if cap is None else min(cap, budget)


def spendable(remaining: int | None, wanted: int) -> int:
    """How many of ``wanted`` single requests the ``remaining`` limit allows, keeping
    ``RESERVE`` in hand (all of them before GitHub has said)."""
    return wanted if remaining is None else max(0, min(wanted, remaining - RESERVE))


# The share of the requests left (beyond those kept for commands) a digest may spend to stream
# the windows its report compares against.
REACH_SHARE = 0.5
