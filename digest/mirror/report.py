"""What a sync did: the tally its parts keep while it runs, and the report it ends with."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from digest.i18n import Note
from digest.mirror.store import Completion


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one ``ensure`` did: requests, distinct items and comments stored, visible gaps.

    ``covered_from`` is the earliest moment from which the store now answers every window up
    to now (``None`` when only the window asked for was fetched, through the Search API).
    ``requests_by_stream`` splits ``requests`` by stream: ``issues``, ``comments``,
    ``review_comments``, ``search`` and ``items`` (old items fetched one by one).
    """

    requests: int
    items: int
    comments: int
    synced_at: datetime | None
    used_search: bool = False
    notes: tuple[Note, ...] = ()
    covered_from: datetime | None = None
    review_comments: int = 0
    requests_by_stream: dict[str, int] = field(default_factory=dict)
    completion: Completion | None = None


@dataclass(slots=True)
class Tally:
    """What one ``ensure`` has done so far, kept by each part it runs."""

    items: set[int] = field(default_factory=set)  # numbers upserted
    comments: set[int] = field(default_factory=set)  # conversation comment ids upserted
    review_comments: set[int] = field(default_factory=set)  # review comment ids upserted
    requests: Counter[str] = field(default_factory=Counter)  # requests made, by stream
    pages: Counter[str] = field(default_factory=Counter)  # pages stored, by stream
    done: set[str] = field(default_factory=set)  # streams read to their end
    used_search: bool = False
    notes: list[Note] = field(default_factory=list)
    began: dict[str, datetime] = field(default_factory=dict)  # where each stream's read began
    completion: Completion | None = None

    def report(
        self, *, requests: int, synced_at: datetime | None, covered_from: datetime | None
    ) -> SyncReport:
        """The report of a sync that made ``requests`` in all and left this tally."""
        return SyncReport(
            requests=requests,
            items=len(self.items),
            comments=len(self.comments),
            synced_at=synced_at,
            used_search=self.used_search,
            notes=tuple(self.notes),
            covered_from=covered_from,
            review_comments=len(self.review_comments),
            requests_by_stream=dict(self.requests),
            completion=self.completion,
        )
