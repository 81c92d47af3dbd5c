"""The report of a sync, from the tally its parts kept."""

from __future__ import annotations

from datetime import UTC, datetime

from digest.i18n import Note
from digest.mirror.report import Tally

NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)


def test_a_report_counts_each_row_once_and_splits_requests_by_stream() -> None:
    """An item or comment stored twice counts once; requests add up by stream."""
    tally = Tally()
    tally.items.update([1, 2])
    tally.items.update([2, 3])
    tally.comments.update([10, 10, 11])
    tally.review_comments.add(20)
    tally.requests["issues"] += 2
    tally.requests["comments"] += 1
    tally.requests["issues"] += 1
    tally.notes.append(Note("sync.resets", (("when", "2026-03-11 04:21 UTC"),)))
    report = tally.report(requests=4, synced_at=NOW, covered_from=None)
    assert (report.items, report.comments, report.review_comments) == (3, 2, 1)
    assert report.requests_by_stream == {"issues": 3, "comments": 1}
    assert report.requests == 4 and report.synced_at == NOW and report.covered_from is None
    assert [note.text("en") for note in report.notes] == [
        "GitHub's limit resets at 2026-03-11 04:21 UTC"
    ]
