"""Which report days a rebuild takes from the previous site as they are.

A day is reused (neither digested nor rendered nor charted again) when its fingerprint (the
window, the configuration, the code that writes digests and pages) is the one the previous
build recorded and no data it shows or compares against arrived since. The mirror's data
version says whether anything arrived; when something did, the items changed and the
comments made since the previous build's cursors name the days they touch: the days of their
openings, closes, merges and comments and the days that compare against those (the previous
window and the seven of trends), and every day whose page cites a changed item (its state and
later fate are shown there).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from importlib import metadata

from digest.analysis.types import HISTORY_WINDOWS
from digest.mirror.store import Store, SyncState
from digest.models import Window
from digest.render.html import fingerprint as render_fingerprint
from digest.service import data_version
from digest.windows import report_day

LOOKBACK = HISTORY_WINDOWS + 1  # a day compares against the window before it and seven more
MARGIN = timedelta(minutes=5)  # changes looked for before the previous cursors (the sync
# itself reads its streams from 2 minutes before them)
_FAR = datetime(9999, 1, 1, tzinfo=UTC)


@cache
def code_version() -> str:
    """The installed version of the code that writes digests and pages."""
    try:
        version = metadata.version("vllm-report")
    except metadata.PackageNotFoundError:
        version = "0"
    return f"{version}:{render_fingerprint()}"


def mirror_mark(state: SyncState) -> dict[str, str | None]:
    """What a build records of the mirror it read, for the next build to compare."""

    def moment(value: datetime | None) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "version": data_version(state),
        "items_cursor": moment(state.items_cursor),
        "comments_cursor": moment(state.comments_cursor),
        "review_comments_cursor": moment(state.review_comments_cursor),
        "covered_since": moment(state.covered_since),
        "synced_at": moment(state.synced_at),
    }


@dataclass(frozen=True, slots=True)
class Calendar:
    """The report days of a repository: which day's window holds a moment."""

    timezone: str
    day_start: str

    def day_of(self, moment: datetime) -> date:
        return report_day(moment, self.timezone, self.day_start)


async def touched_days(
    store: Store,
    repo: str,
    previous: Mapping[str, object] | None,
    state: SyncState,
    calendar: Calendar,
    cited: Mapping[date, Mapping[str, str]],
) -> set[date] | None:
    """The days new data may have changed since the build that recorded ``previous``;
    ``None`` when any may have (no record, or the mirror's coverage changed).

    ``cited`` gives each day's cited items (number to :func:`shown`, its title and labels,
    when its appendix lists show it, else ""). New openings, closes, merges and comments touch
    their day and the days that compare against it; an item closed or merged since touches
    every day citing it, and one retitled or relabelled every day listing it. A new title of
    an item that only a section names does not (the day shows it when it is built again).
    """
    mark = mirror_mark(state)
    if not previous or previous.get("covered_since") != mark["covered_since"]:
        return None
    if previous.get("version") == mark["version"]:
        return set()
    since = [
        datetime.fromisoformat(str(previous[key])) - MARGIN
        for key in ("items_cursor", "comments_cursor", "review_comments_cursor", "synced_at")
        if previous.get(key)
    ]
    if not since:
        return None
    start = min(since)  # what the previous build saw ended at its cursors and its sync
    moments: list[datetime] = []
    fates: set[str] = set()  # items closed or merged since: every day citing them changes
    titles: dict[str, str] = {}
    for item in await store.items_updated(repo, start, _FAR):
        titles[str(item.number)] = shown(item.title, item.labels)
        for kind, moment in (
            ("opened", item.created_at),
            ("closed", item.closed_at),
            ("merged", item.merged_at),
        ):
            if moment is not None and moment >= start:
                moments.append(moment)
                if kind != "opened":
                    fates.add(str(item.number))
    moments += [c.created_at for c in await store.comments_created(repo, start, _FAR)]
    touched = {calendar.day_of(m) + timedelta(days=k) for m in moments for k in range(LOOKBACK + 1)}
    for day, items in cited.items():
        for number, title in items.items():
            if number in fates or (number in titles and title and titles[number] != title):
                touched.add(day)
                break
    return touched


def shown(title: str, labels: Iterable[str]) -> str:
    """What a day's appendix shows of an item besides its state: its title and labels (a
    label edit changes the topics it falls under), as the manifest keeps it."""
    tags = ",".join(sorted(labels))
    return f"{title}\x1f{tags}" if tags else title


def cited_record(refs: Iterable[tuple[int | str, str]]) -> dict[str, str]:
    """The items a day's pages cite, number (``owner/name#N`` in a scope's) to what the first
    listed reference shows (:func:`shown`), as the site's manifest keeps them."""
    out: dict[str, str] = {}
    for number, title in refs:
        key = str(number)
        if not out.get(key):
            out[key] = title
    return out


def day_fingerprint(window: Window, *, config: str, langs: Iterable[str], closed: bool) -> str:
    """What a day's pages and record are a function of, besides the mirror's data."""
    parts = (
        code_version(),
        config,
        ",".join(langs),
        window.start.isoformat(),
        window.end.isoformat(),
        window.timezone,
        "closed" if closed else "open",
    )
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]
