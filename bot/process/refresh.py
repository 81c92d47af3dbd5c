"""Keeps the mirrors fresh in the background, so a command rarely waits for GitHub."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from digest.errors import DigestError, NotFound, RepoRefused
from digest.mirror.pacing import Pacer
from digest.mirror.store import Sync
from digest.models import Window

log = logging.getLogger(__name__)

ReposFn = Callable[[], Awaitable[Iterable[str]]]
PruneFn = Callable[[Iterable[str]], Awaitable[list[str]]]


class Lapses(Protocol):
    """Counts the syncs of a repository that answered NotFound (``RepoAccess``)."""

    lapse_after: int

    async def misses(self, repo: str) -> int: ...

    async def recheck(self, repo: str) -> None: ...

    async def missed(self, repo: str) -> int: ...

    async def answered(self, repo: str) -> None: ...


class MirrorSync:
    """Syncs every followed repository's last day every ``interval`` until stopped.

    With ``lapses``, a repository whose syncs answered NotFound too often in a row is left out
    (until GitHub shows it again: a subscribe or a command naming it); with ``prune``, every
    ``prune_every`` the mirrors of repositories nobody follows or asked for lately are dropped.
    """

    def __init__(
        self,
        sync: Sync,
        repos: ReposFn,
        *,
        clock: Callable[[], datetime],
        interval: timedelta = timedelta(minutes=10),
        pacer: Pacer | None = None,
        reconcile: Callable[[str], Awaitable[list[int]]] | None = None,
        reconcile_every: timedelta = timedelta(hours=1),
        lapses: Lapses | None = None,
        prune: PruneFn | None = None,
        prune_every: timedelta = timedelta(hours=6),
    ) -> None:
        self._sync = sync
        self._repos = repos
        self._clock = clock
        self._interval = interval
        self._pacer = pacer
        self._reconcile = reconcile
        self._reconcile_every = reconcile_every
        self._reconciled: datetime | None = None
        self._lapses = lapses
        self._prune = prune
        self._prune_every = prune_every
        self._pruned: datetime | None = None
        self.counters: Counter[str] = Counter()
        self.last_success: datetime | None = None  # when every followed repository last synced

    async def sync_once(self) -> None:
        """One sync of each repository; failures are logged and counted, never raised."""
        try:
            names = list(dict.fromkeys(await self._repos()))
        except DigestError as exc:
            self.counters["sync_errors"] += 1
            log.warning("sync.repos_unavailable", extra={"error": str(exc)})
            return
        end = self._clock().astimezone(UTC).replace(second=0, microsecond=0)
        window = Window(end - timedelta(days=1), end, "UTC", "today", ends_now=True)
        failed = False
        for repo in names:
            if self._lapses is not None:
                misses = await self._lapses.misses(repo)
                if misses >= self._lapses.lapse_after:
                    self.counters["sync_lapsed"] += 1
                    continue
                if misses:  # the next miss must be GitHub's answer, not a kept one
                    await self._lapses.recheck(repo)
            self.counters["sync_requests"] += 1
            try:
                await self._sync.ensure(repo, window)
            except DigestError as exc:
                failed = True
                self.counters["sync_errors"] += 1
                log.warning(
                    "sync.failed",
                    extra={"repo": repo, "error": type(exc).__name__, "detail": str(exc)},
                )
                await self._missed(repo, exc)
            else:
                if self._lapses is not None:
                    await self._lapses.answered(repo)
        if not failed:
            self.last_success = self._clock()

    async def _missed(self, repo: str, error: DigestError) -> None:
        """Count a sync that found no repository (GitHub's 404, or the access's)."""
        missing = isinstance(error, NotFound) or (
            isinstance(error, RepoRefused) and error.reason == "missing"
        )
        if missing and self._lapses is not None:
            await self._lapses.missed(repo)

    async def prune_due(self) -> None:
        """Once every ``prune_every``, drop the mirrors nobody follows or asked for lately."""
        now = self._clock()
        if self._prune is None or (
            self._pruned is not None and now - self._pruned < self._prune_every
        ):
            return
        try:
            followed = list(await self._repos())
            dropped = await self._prune(followed)
        except DigestError as exc:  # the state or the mirror is unreachable: next time
            log.warning("mirror.prune_failed", extra={"error": type(exc).__name__})
            return
        self._pruned = now
        self.counters["mirrors_pruned"] += len(dropped)

    async def reconcile_due(self) -> None:
        """Once every ``reconcile_every``, remove deleted and transferred items from each
        followed repository's mirror (a few requests each, budgeted by the syncer)."""
        now = self._clock()
        if self._reconcile is None or (
            self._reconciled is not None and now - self._reconciled < self._reconcile_every
        ):
            return
        self._reconciled = now
        try:
            names = list(dict.fromkeys(await self._repos()))
        except DigestError:
            return
        for repo in names:
            try:
                removed = await self._reconcile(repo)
            except DigestError as exc:
                log.warning("sync.reconcile_failed", extra={"repo": repo, "error": str(exc)})
                continue
            self.counters["items_removed"] += len(removed)

    def next_wait(self) -> timedelta:
        """The wait before the next round: ``interval``, stretched by the pacer (if any) to
        what GitHub's remaining limit allows."""
        if self._pacer is None:
            return self._interval
        return self._pacer.wait(self._interval, self._clock())

    async def run_forever(self, stop: asyncio.Event) -> None:
        """Sync now, then every ``interval`` (or longer, paced), until ``stop`` is set."""
        while not stop.is_set():
            if self._pacer is not None:
                self._pacer.start()
            await self.sync_once()
            await self.reconcile_due()
            await self.prune_due()
            wait = self.next_wait()
            if wait > self._interval:
                log.info("sync.paced", extra={"wait_seconds": round(wait.total_seconds())})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait.total_seconds())


def followed_repos(
    default_repo: str, configured: Iterable[str], subscribed: Iterable[str]
) -> list[str]:
    """The repositories to keep fresh, each once (case-insensitively), in a stable order."""
    seen: dict[str, str] = {}
    for name in (default_repo, *configured, *subscribed):
        seen.setdefault(name.lower(), name)
    return list(seen.values())
