"""At most one sync per repository at a time across replicas; a recent sync is reused.

:class:`SyncGate` wraps a :class:`~digest.builder.Sync` and is one itself. A sync that
finished less than ``fresh_for`` ago (default 60 s) is reused without calling GitHub for a
window it covered: one within the window it was asked for, or one starting at or after the
moment from which it left the store complete (its ``covered_from``) — and, for a window that
has ended (a date, not one ending now), only a sync that started after its end (the daily
post at 11:21 does not reuse a sync begun at 11:20:55, which could miss the window's last
seconds). Otherwise one task in
one process syncs (holding a claim on ``sync-lock:<repo>``) while the others wait for its
record. With the shared state unavailable, each process syncs on its own (still one at a time
per repository within it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from digest.i18n import Note
from digest.mirror.store import Completion, Sync, SyncResult
from digest.models import Window
from digest.state.base import SharedState
from digest.state.single_flight import FlightStats, SingleFlight


@dataclass(frozen=True, slots=True)
class GateResult:
    """A sync result as recorded for reuse."""

    synced_at: datetime | None
    notes: tuple[Note, ...] = ()
    covered_from: datetime | None = None
    completion: Completion | None = None
    repo: str | None = None  # what a renamed repository is called now


@dataclass(frozen=True, slots=True)
class _Record:
    result: GateResult
    start: datetime  # the window the sync was asked for
    end: datetime
    finished_at: datetime  # by the gate's clock
    started_at: datetime

    def covers(self, window: Window) -> bool:
        """Whether the store answers ``window`` as this sync left it."""
        if self.start <= window.start and window.end <= self.end:
            return True
        covered = self.result.covered_from
        return covered is not None and covered <= window.start

    def encode(self) -> str:
        result = self.result
        return json.dumps(
            {
                "synced_at": _iso(result.synced_at),
                "notes": [[note.key, note.values] for note in result.notes],
                "covered_from": _iso(result.covered_from),
                "completion": _completion_json(result.completion),
                "repo": result.repo,
                "start": self.start.isoformat(),
                "end": self.end.isoformat(),
                "finished_at": self.finished_at.isoformat(),
                "started_at": self.started_at.isoformat(),
            }
        )

    @classmethod
    def decode(cls, raw: str) -> _Record | None:
        """The record ``encode`` wrote; ``None`` for anything else."""
        try:
            data = json.loads(raw)
            result = GateResult(
                _moment(data["synced_at"]),
                tuple(
                    Note(str(key), tuple((str(k), str(v)) for k, v in values))
                    for key, values in data["notes"]
                ),
                _moment(data["covered_from"]),
                _completion_of(data.get("completion")),
                str(data["repo"]) if data.get("repo") else None,
            )
            return cls(
                result,
                datetime.fromisoformat(data["start"]),
                datetime.fromisoformat(data["end"]),
                datetime.fromisoformat(data["finished_at"]),
                datetime.fromisoformat(data["started_at"]),
            )
        except (ValueError, KeyError, TypeError):
            return None


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _completion_json(completion: Completion | None) -> dict[str, object] | None:
    if completion is None:
        return None
    at, requests, per_hour = completion.at, completion.requests, completion.per_hour
    return {"at": at.isoformat(), "requests": requests, "per_hour": per_hour}


def _completion_of(data: dict[str, object] | None) -> Completion | None:
    if data is None:
        return None
    return Completion(
        datetime.fromisoformat(str(data["at"])),
        int(str(data["requests"])),
        int(str(data["per_hour"])),
    )


class SyncGate:
    """A :class:`~digest.builder.Sync` that syncs each repository once at a time, everywhere."""

    def __init__(
        self,
        sync: Sync,
        state: SharedState,
        clock: Callable[[], datetime],
        *,
        fresh_for: timedelta = timedelta(seconds=60),
        lock_ttl: timedelta = timedelta(seconds=60),
        wait_timeout: timedelta = timedelta(minutes=5),
        poll: timedelta = timedelta(milliseconds=50),
    ) -> None:
        self._sync = sync
        self._state = state
        self._clock = clock
        self._fresh_for = fresh_for
        self._recent: dict[str, _Record] = {}
        self._flight: SingleFlight[SyncResult] = SingleFlight(
            state, name="sync", lock_ttl=lock_ttl, wait_timeout=wait_timeout, poll=poll
        )

    @property
    def stats(self) -> FlightStats:
        """Counts of reused, performed, awaited and direct syncs."""
        return self._flight.stats

    def _usable(self, record: _Record | None, window: Window) -> bool:
        now = self._clock()
        return (
            record is not None
            and record.covers(window)
            and now - record.finished_at < self._fresh_for
            and (window.ends_now or window.end > now or record.started_at >= window.end)
        )

    async def ensure(self, repo: str, window: Window) -> SyncResult:
        """Sync ``repo`` for ``window`` unless a fresh enough sync already covers it."""
        name = repo.lower()
        record = self._recent.get(name)
        if record is not None and self._usable(record, window):
            self._flight.stats.found += 1
            return record.result
        key = f"sync:v3:{name}"

        async def lookup() -> SyncResult | None:
            raw = await self._state.get(key)
            found = None if raw is None else _Record.decode(raw)
            if found is None or not self._usable(found, window):
                return None
            self._recent[name] = found
            return found.result

        async def produce() -> SyncResult:
            started = self._clock()
            result = await self._sync.ensure(repo, window)
            done = _Record(
                GateResult(
                    result.synced_at,
                    tuple(result.notes),
                    result.covered_from,
                    result.completion,
                    result.repo,
                ),
                window.start,
                window.end,
                self._clock(),
                started,
            )
            self._recent[name] = done
            return done.result

        async def publish(result: SyncResult) -> None:
            done = self._recent[name]
            if self._fresh_for > timedelta(0):  # fresh_for 0: never reused, nothing to record
                await self._state.set(key, done.encode(), self._fresh_for)

        return await self._flight.run(
            f"{name}|{window.start.isoformat()}|{window.end.isoformat()}",
            f"sync-lock:{name}",
            lookup,
            produce,
            publish,
        )
