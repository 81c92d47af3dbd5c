"""The sync's budgets: what it may spend of the rate limit GitHub says is left."""

from __future__ import annotations

import pytest

from digest.mirror.tuning import RESERVE, UNSAID_PAGES, old_comment_budget, spendable


@pytest.mark.parametrize(
    ("remaining", "cap", "pages"),
    [
        (5000, None, 2500),  # a fresh token: half the hour's limit
        (60, None, 30),  # no token
        (None, None, UNSAID_PAGES),  # GitHub has not said yet
        (None, 3, 3),
        (5000, 7, 7),
        (3, None, 1),  # never the last RESERVE
        (RESERVE, None, 0),
    ],
)
def test_old_comment_pages_scale_with_the_limit_left(
    remaining: int | None, cap: int | None, pages: int
) -> None:
    """An old window's comments may read half the requests left, capped, keeping a reserve."""
    assert old_comment_budget(remaining, share=0.5, cap=cap) == pages


@pytest.mark.parametrize(
    ("remaining", "wanted", "allowed"),
    [(None, 5, 5), (100, 5, 5), (RESERVE + 2, 5, 2), (1, 5, 0)],
)
def test_single_requests_keep_the_reserve(remaining: int | None, wanted: int, allowed: int) -> None:
    """Items fetched one by one stop before the last ``RESERVE`` requests of the limit."""
    assert spendable(remaining, wanted) == allowed
