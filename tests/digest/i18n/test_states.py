"""An item's state in words."""

from __future__ import annotations

from datetime import timedelta

from digest.i18n import state_of
from digest.models import ItemState
from tests.support.analysis_sample import START, make_item


def test_a_merged_pr_and_an_issue_closed_as_not_planned() -> None:
    """A merged PR reads merged; an issue closed as not planned says so."""
    merged = make_item(1, pr=True, merged=START + timedelta(hours=2))
    dropped = make_item(2, closed=START + timedelta(hours=2), state_reason="not_planned")
    assert (state_of(merged, "zh"), state_of(merged, "en")) == ("已合并", "merged")
    assert state_of(dropped, "en") == "closed as not planned"


def test_an_issue_closed_for_an_unknown_reason_is_closed() -> None:
    """A state reason GitHub may add later reads as plain closed."""
    item = make_item(3, state=ItemState.CLOSED, state_reason="reopened_elsewhere")
    assert state_of(item, "zh") == "已关闭"
