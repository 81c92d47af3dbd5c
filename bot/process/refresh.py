"""Keeps the mirrors fresh in the background, so a command rarely waits for GitHub."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime, timedelta

from digest.errors import DigestError
from digest.mirror.pacing import Pacer
from digest.mirror.store import Sync
from digest.models import Window

log = logging.getLogger(__name__)

ReposFn = Callable[[], Awaitable[Iterable[str]]]


class MirrorSync:
    """Syncs every followed repository's last day every ``interval`` until stopped."""

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
    ) -> None:
        self._sync = sync
        self._repos = repos
        self._clock = clock
        self._interval = interval
        self._pacer = pacer
        self._reconcile = reconcile
        self._reconcile_every = reconcile_every
        self._reconciled: datetime | None = None
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
        if not failed:
            self.last_success = self._clock()

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
