"""Subscriptions and their schedule: pure functions of a subscription and a moment.

A subscription posts at a local time in an IANA timezone: every day (``daily``), Monday to
Friday in that timezone (``weekdays``), or once a week on one day (``weekly``). On a
spring-forward day a local time that does not exist runs at the first valid moment after it
(the end of the gap); on a fall-back day an ambiguous local time runs once, at its first
occurrence. The window of a run is the 24 hours (7 days for ``weekly``) ending at the scheduled
moment, and the claim key of a run is derived from the subscription and that window, never from
the current time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from digest.models import Lang, Window
from digest.windows import parse_day_start, zone

PLATFORMS = ("slack", "discord")
CADENCES = ("daily", "weekdays", "weekly")
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
QUIET_DAYS = ("note", "skip")  # a window with nothing after filters: a one-line note, or nothing
RUN_WINDOW = timedelta(days=1)
WEEK_WINDOW = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Subscription:
    """One channel's scheduled digest of one repository.

    ``cadence`` is ``daily``, ``weekdays`` or ``weekly``; ``weekday`` (0 is Monday) is the day
    of a weekly post. ``topics`` and ``writer`` left as ``None`` follow the repository's and the
    deployment's defaults at build time. Runs scheduled at or before ``since`` (when the channel
    subscribed) are never due, so a new subscription does not catch up a post from before it
    existed.

    The subject is ``repo`` alone, or a configured ``scope`` (its name), or several ``repos``
    (``repo`` is then their first). ``quiet_days`` says what a run with nothing in its window
    posts: a one-line note (``note``) or nothing (``skip``).
    """

    platform: str
    channel: str
    repo: str
    time: str
    timezone: str
    lang: Lang = Lang.EN
    topics: tuple[str, ...] | None = None
    writer: str | None = None
    since: datetime | None = None
    cadence: str = "daily"
    weekday: int = 0
    workspace: str | None = None  # the Slack workspace or Discord server it was made in
    scope: str | None = None
    repos: tuple[str, ...] = ()
    quiet_days: str = "note"

    def __post_init__(self) -> None:
        if self.quiet_days not in QUIET_DAYS:
            raise ValueError(f"quiet days are {' or '.join(QUIET_DAYS)}, not {self.quiet_days!r}")
        if self.platform not in PLATFORMS:
            raise ValueError(f"unknown platform {self.platform!r}")
        if self.cadence not in CADENCES:
            raise ValueError(f"unknown schedule {self.cadence!r} (use one of {CADENCES})")
        if not 0 <= self.weekday < len(WEEKDAYS):
            raise ValueError(f"a weekday is 0 (Monday) to 6 (Sunday), not {self.weekday!r}")
        if not self.channel:
            raise ValueError("a subscription needs a channel")
        parse_day_start(self.time)
        zone(self.timezone)
        if self.since is not None and self.since.tzinfo is None:
            raise ValueError("since must be timezone-aware")

    @property
    def subject(self) -> str:
        """What it reports on: ``owner/name``, ``scope:NAME`` or ``a/b,c/d``."""
        if self.scope:
            return f"scope:{self.scope}"
        return ",".join(self.repos) if self.repos else self.repo

    @property
    def key(self) -> str:
        """The subject, as the store keys it (one subscription per channel and subject)."""
        return self.subject.lower()

    @property
    def id(self) -> str:
        """Stable identity: one subscription per platform, channel and subject."""
        return f"{self.platform}:{self.channel}:{self.key}"

    @property
    def local_time(self) -> clock_time:
        return parse_day_start(self.time)

    @property
    def tz(self) -> ZoneInfo:
        return zone(self.timezone)

    @property
    def day_name(self) -> str:
        """The weekly post's day, ``mon`` to ``sun``."""
        return WEEKDAYS[self.weekday]

    def posts_on(self, day: date) -> bool:
        """Whether the schedule has a run on the local date ``day``."""
        if self.cadence == "weekdays":
            return day.weekday() < 5
        if self.cadence == "weekly":
            return day.weekday() == self.weekday
        return True

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping; ``from_dict`` reverses it."""
        return {
            "platform": self.platform,
            "channel": self.channel,
            "repo": self.repo,
            "time": self.time,
            "timezone": self.timezone,
            "lang": self.lang,
            "topics": list(self.topics) if self.topics is not None else None,
            "writer": self.writer,
            "since": self.since.astimezone(UTC).isoformat() if self.since else None,
            "cadence": self.cadence,
            "day": self.day_name,
            **({"workspace": self.workspace} if self.workspace is not None else {}),
            **({"scope": self.scope} if self.scope else {}),
            **({"repos": list(self.repos)} if self.repos else {}),
            **({"quiet_days": self.quiet_days} if self.quiet_days != "note" else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Subscription:
        topics = data.get("topics")
        return cls(
            platform=str(data["platform"]),
            channel=str(data["channel"]),
            repo=str(data["repo"]),
            time=str(data["time"]),
            timezone=str(data["timezone"]),
            lang=Lang.parse(str(data.get("lang") or "")) or Lang.EN,
            topics=tuple(str(t) for t in topics) if topics is not None else None,
            writer=str(data["writer"]) if data.get("writer") else None,
            since=datetime.fromisoformat(data["since"]) if data.get("since") else None,
            cadence=str(data.get("cadence") or "daily"),
            weekday=WEEKDAYS.index(str(data.get("day") or "mon")),
            workspace=str(data["workspace"]) if data.get("workspace") else None,
            scope=str(data["scope"]) if data.get("scope") else None,
            repos=tuple(str(r) for r in data.get("repos") or ()),
            quiet_days=str(data.get("quiet_days") or "note"),
        )


def _gap_end(naive: datetime, tz: ZoneInfo) -> datetime:
    """The first valid moment (UTC) after a local time that a spring-forward skips."""
    low = naive.replace(tzinfo=tz, fold=1).astimezone(UTC)  # read with the later offset
    high = naive.replace(tzinfo=tz, fold=0).astimezone(UTC)  # read with the earlier offset
    if high < low:
        low, high = high, low
    while high - low > timedelta(seconds=1):
        mid = low + (high - low) / 2
        if mid.astimezone(tz).replace(tzinfo=None) >= naive:
            high = mid
        else:
            low = mid
    return high.replace(microsecond=0)


@lru_cache(maxsize=4096)
def run_on(subscription: Subscription, day: date) -> datetime:
    """The scheduled moment (UTC) of ``subscription`` on the local date ``day``."""
    tz = subscription.tz
    naive = datetime.combine(day, subscription.local_time)
    first = naive.replace(tzinfo=tz, fold=0)
    as_utc = first.astimezone(UTC)
    if as_utc.astimezone(tz).replace(tzinfo=None) != naive:
        return _gap_end(naive, tz)
    return as_utc


def _around(subscription: Subscription, moment: datetime) -> Iterator[datetime]:
    """The runs of the local days from eight days before ``moment`` to eight days after it."""
    if moment.tzinfo is None:
        raise ValueError("the moment must be timezone-aware")
    local_day = moment.astimezone(subscription.tz).date()
    reach = 1 if subscription.cadence == "daily" else 8
    for offset in range(-reach, reach + 1):
        day = local_day + timedelta(days=offset)
        if subscription.posts_on(day):
            yield run_on(subscription, day)


def next_run(subscription: Subscription, after: datetime) -> datetime:
    """The first scheduled moment (UTC) strictly after ``after``."""
    return min(run for run in _around(subscription, after) if run > after)


def runs_between(subscription: Subscription, start: datetime, end: datetime) -> list[datetime]:
    """Every scheduled moment in ``(start, end]``, oldest first."""
    runs: list[datetime] = []
    moment = start
    while (run := next_run(subscription, moment)) <= end:
        runs.append(run)
        moment = run
    return runs


def run_window(subscription: Subscription, scheduled: datetime) -> Window:
    """The window a run reports on: the 24 hours (a weekly run: the 7 days) ending at its
    scheduled moment."""
    end = scheduled.astimezone(UTC)
    if subscription.cadence == "weekly":
        return Window(end - WEEK_WINDOW, end, subscription.timezone)
    start = end - RUN_WINDOW
    label = start.astimezone(subscription.tz).date().isoformat()
    return Window(start, end, subscription.timezone, label)


def claim_key(subscription: Subscription, window: Window) -> str:
    """The key that at most one instance may hold to post ``window`` for ``subscription``."""
    ident = hashlib.sha256(subscription.id.encode()).hexdigest()[:16]
    start, end = window.start.astimezone(UTC), window.end.astimezone(UTC)
    return f"post:{ident}:{start:%Y%m%dT%H%M%SZ}-{end:%Y%m%dT%H%M%SZ}"


def due_runs(subscription: Subscription, now: datetime, grace: timedelta) -> list[datetime]:
    """The scheduled moments still worth posting at ``now``: within ``grace``, after ``since``."""
    floor = now - grace
    if subscription.since is not None and subscription.since > floor:
        floor = subscription.since
    return runs_between(subscription, floor, now)
