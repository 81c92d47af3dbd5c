"""Items and comments as rows: every field survives the round trip, times to the microsecond."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from digest.mirror.rows import (
    comment_from_dict,
    comment_to_dict,
    from_micros,
    item_from_dict,
    item_to_dict,
    to_micros,
)
from tests.support.analysis_sample import sample_data


def test_every_sample_item_survives_the_round_trip() -> None:
    """An item written as a row and read back is the same item, whatever its kind and state."""
    items = sample_data().items
    assert items
    for item in items:
        assert item_from_dict(item.repo, item.number, item_to_dict(item)) == item


def test_every_sample_comment_survives_the_round_trip() -> None:
    """A comment written as a row and read back is the same comment."""
    comments = sample_data().comments
    assert comments
    for comment in comments:
        row = comment_to_dict(comment)
        assert comment_from_dict(comment.repo, comment.id, row) == comment


def test_rows_keep_microseconds_and_bring_times_back_in_utc() -> None:
    """A time with microseconds in another zone comes back as the same instant, in UTC."""
    moment = datetime(2026, 3, 10, 11, 21, 7, 123456, tzinfo=timezone(timedelta(hours=8)))
    back = from_micros(to_micros(moment))
    assert back == moment and back.tzinfo == UTC and back.microsecond == 123456


def test_a_changed_field_is_what_comes_back() -> None:
    """The row carries the item's own values, not defaults: a changed title and label return."""
    item = sample_data().items[0]
    changed = replace(item, title="[ROCm] changed <b>title</b>", labels=("rocm", "bug"))
    assert item_from_dict(item.repo, item.number, item_to_dict(changed)) == changed


def test_naive_times_are_refused() -> None:
    """A naive datetime never reaches the store: its instant would be a guess."""
    with pytest.raises(ValueError, match="naive"):
        to_micros(datetime(2026, 3, 10, 11, 21))
