"""Corrections of daily posts that went out behind: built from a sync the rate limit stopped.

Once the mirror has caught up, the run's digest is built again and, when it is complete, a
short correction (the complete figures) goes into the post's thread, under the parent the
ledger recorded: both platforms can post there, and nothing already posted is edited.

Exactly once across replicas, with keys of the post ledger next to the run's own:
``behind:{run key}`` is marked (like a posted run) by the replica that posted the run behind,
so any replica that later finds the run posted knows it needs a correction;
``fix:{run key}`` is claimed by the replica that corrects it and marked posted once the
correction is out (a failed correction releases the claim and is tried again).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from digest.builder import DigestRequest
from digest.errors import DigestError
from digest.models import Digest, Window
from digest.schedule.ledger import PostLedger
from digest.schedule.subscription import Subscription

log = logging.getLogger(__name__)

BuildFn = Callable[[DigestRequest], Awaitable[Digest]]
RequestFn = Callable[[Subscription, Window], DigestRequest]
CorrectFn = Callable[[Subscription, Digest, str], Awaitable[None]]
"""Posts the correction of ``subscription``'s post from the complete ``digest`` into the
thread of the parent message whose id is given."""


@dataclass(slots=True)
class _Pending:
    subscription: Subscription
    window: Window
    scheduled: datetime
    check_at: datetime


class Corrections:
    """The daily posts of this scheduler that went out behind, until each is corrected."""

    def __init__(
        self,
        ledger: PostLedger,
        *,
        request: RequestFn,
        build: BuildFn,
        correct: CorrectFn,
        clock: Callable[[], datetime],
        owner: str,
        keep: timedelta,
        claim_ttl: timedelta = timedelta(minutes=10),
        recheck: timedelta = timedelta(minutes=5),
    ) -> None:
        self._ledger = ledger
        self._request = request
        self._build = build
        self._correct = correct
        self._clock = clock
        self._owner = owner
        self._keep = keep
        self._claim_ttl = claim_ttl
        self._recheck = recheck
        self._pending: dict[str, _Pending] = {}
        self._seen: dict[str, datetime] = {}  # run key -> scheduled: checked for a correction
        self.counters: Counter[str] = Counter()

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def posted_behind(
        self, key: str, subscription: Subscription, window: Window, scheduled: datetime
    ) -> None:
        """Record that this replica posted run ``key`` from a digest that was behind."""
        self._seen[key] = scheduled
        now = self._clock()
        self._pending[key] = _Pending(subscription, window, scheduled, now + self._recheck)
        await self._ledger.mark_posted(f"behind:{key}", self._owner, now, self._keep)

    async def found_posted(
        self, key: str, subscription: Subscription, window: Window, scheduled: datetime
    ) -> None:
        """A run found posted (by any replica): pending when it went out behind and no
        correction is out yet. Checked once per run and process."""
        if key in self._seen:
            return
        self._seen[key] = scheduled
        if await self._ledger.is_posted(f"behind:{key}") and not await self._ledger.is_posted(
            f"fix:{key}"
        ):
            self._pending[key] = _Pending(subscription, window, scheduled, self._clock())

    async def run(self) -> int:
        """Correct every pending post whose digest is now complete; the corrections made.
        Never raises but for cancellation."""
        made = 0
        now = self._clock()
        for key, pending in list(self._pending.items()):
            if pending.scheduled < now - self._keep:
                del self._pending[key]
            elif pending.check_at <= now:
                try:
                    made += await self._one(key, pending)
                except DigestError as exc:  # the ledger is unreachable: next pass
                    log.warning(
                        "schedule.correction_deferred", extra={"key": key, "error": str(exc)}
                    )
        horizon = now - self._keep
        for key, scheduled in list(self._seen.items()):
            if scheduled < horizon:
                del self._seen[key]
        return made

    async def _one(self, key: str, pending: _Pending) -> int:
        sub = pending.subscription
        now = self._clock()
        pending.check_at = now + self._recheck
        try:
            digest = await self._build(self._request(sub, pending.window))
        except Exception:
            log.exception("schedule.correction_build_failed", extra={"key": key})
            return 0
        if digest.behind:
            return 0
        fix = f"fix:{key}"
        if not await self._ledger.claim(fix, self._owner, now, self._claim_ttl):
            if await self._ledger.is_posted(fix):  # another replica corrected it
                del self._pending[key]
            return 0
        parts = await self._ledger.parts(key)
        if not parts:  # no thread to correct (recorded long ago, or none)
            await self._ledger.mark_posted(fix, self._owner, now, self._keep)
            del self._pending[key]
            return 0
        try:
            await self._correct(sub, digest, parts[0])
        except Exception:
            log.exception("schedule.correction_failed", extra={"key": key})
            self.counters["correction_errors"] += 1
            await self._ledger.release(fix, self._owner)
            return 0
        await self._ledger.mark_posted(fix, self._owner, self._clock(), self._keep)
        del self._pending[key]
        self.counters["posts_corrected"] += 1
        log.info("schedule.corrected", extra={"subscription": sub.id, "key": key})
        return 1
