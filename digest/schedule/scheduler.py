"""The daily poster: every due run of every subscription is posted once, by one replica.

Before posting, a replica claims the run's key (derived from the subscription and its scheduled
window) in a ledger shared by every replica. A claim expires after ``claim_ttl``, so a replica
that dies between claiming and posting leaves the run to another replica (or to itself after a
restart). A failed build or post releases the claim and is retried with capped backoff; runs
missed during downtime are caught up, flagged late, while they are younger than ``grace``; a
thread begun before then is finished by any replica until it is older than the retention.
A post built from a sync the rate limit stopped is corrected in its thread once the mirror has
caught up (with ``correct``; see :mod:`digest.schedule.corrections`).
All subscriptions due at the same moment with the same digest request share one build. A
replica serves only the subscriptions of the ``platforms`` it can post to.

The thread is recorded in the ledger part by part as it goes out (the parent's id, then each
reply's), under the run's claim, and the run is marked posted once the whole thread is out. A
failure or a stop in the middle of the thread releases the claim and a crash lets it expire; the
replica that claims the run next (this one or another) reads the recorded ids and posts the
remaining parts, in order, under the same parent, never a part that was recorded. What remains
is the moment between the platform accepting a part and the ledger recording it: a replica that
dies exactly there cannot be told apart from one that died before posting that part, and the
part is posted again by the replica that resumes the thread (the parent included, when it was
the first part). A "posted" marker that fails (the ledger unreachable) is retried on the next
pass.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from digest.builder import DigestRequest
from digest.errors import DigestError
from digest.models import Digest, Window
from digest.schedule.corrections import CorrectFn, Corrections
from digest.schedule.ledger import PostLedger
from digest.schedule.subscription import Subscription, claim_key, due_runs, next_run, run_window
from digest.schedule.subscriptions import SubscriptionStore

log = logging.getLogger(__name__)

BuildFn = Callable[[DigestRequest], Awaitable[Digest]]
RequestFn = Callable[[Subscription, Window], DigestRequest]
SleepFn = Callable[[float], Awaitable[None]]
PartFn = Callable[[int, str], Awaitable[None]]


class PostFn(Protocol):
    """Posts ``digest`` (or, when ``quiet``, a one-line quiet-day note) to a subscription.

    ``done`` holds the ids of the thread's parts already out (0 is the parent), left by a replica
    that died or by an earlier attempt: the poster posts the parts from ``len(done)`` on, under
    the parent ``done[0]``. It awaits ``part_sent(index, id)`` after each part the platform
    accepted, and stops when that raises. Raising means the thread is not complete: the run is
    retried, from the next part.
    """

    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None: ...


class ClaimLost(RuntimeError):
    """Another replica took the run over in the middle of its thread."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Capped exponential delays between retries of one failed run."""

    first: timedelta = timedelta(minutes=1)
    factor: float = 2.0
    cap: timedelta = timedelta(minutes=30)

    def delay(self, attempt: int) -> timedelta:
        """The delay after the ``attempt``-th failure (1-based)."""
        return min(self.cap, self.first * self.factor ** max(0, attempt - 1))


@dataclass(frozen=True, slots=True)
class Run:
    """One scheduled post of one subscription."""

    subscription: Subscription
    scheduled: datetime
    window: Window
    key: str
    late: bool


def is_quiet(digest: Digest) -> bool:
    """No new or closed issues or pull requests in the window, and nothing degraded: a digest
    with notes ("counts may be low") is posted in full, so its notes are seen."""
    return not digest.notes and not any(digest.counts.as_dict().values())


class Scheduler:
    """Runs the daily posts of every subscription; safe to run on several replicas at once."""

    def __init__(
        self,
        *,
        subscriptions: SubscriptionStore,
        ledger: PostLedger,
        request: RequestFn,
        build: BuildFn,
        post: PostFn,
        clock: Callable[[], datetime],
        sleep: SleepFn = asyncio.sleep,
        grace: timedelta = timedelta(hours=6),
        claim_ttl: timedelta = timedelta(minutes=10),
        late_after: timedelta = timedelta(minutes=10),
        backoff: Backoff = Backoff(),
        poll: timedelta = timedelta(minutes=1),
        owner: str | None = None,
        platforms: Collection[str] | None = None,
        correct: CorrectFn | None = None,
        recheck: timedelta = timedelta(minutes=5),
    ) -> None:
        self._subscriptions = subscriptions
        self._ledger = ledger
        self._request = request
        self._build = build
        self._post = post
        self._clock = clock
        self._sleep = sleep
        self.grace = grace
        self._claim_ttl = claim_ttl
        self._late_after = late_after
        self._backoff = backoff
        self._poll = poll
        self.owner = owner or uuid.uuid4().hex[:12]
        self._platforms = frozenset(platforms) if platforms is not None else None
        self._keep = grace + timedelta(days=2)
        self._failures: dict[str, tuple[int, datetime]] = {}  # key -> (attempts, retry at)
        self._posted: dict[str, datetime] = {}  # key -> scheduled moment, known posted
        self._unrecorded: dict[str, Run] = {}  # posted, but the ledger did not record it yet
        # parts a platform accepted while the ledger was unreachable: key -> [(index, id)]
        self._unrecorded_parts: dict[str, list[tuple[int, str]]] = {}
        self._next_due: datetime | None = None
        self.counters: Counter[str] = Counter()
        self.subscription_count = 0
        self.last_tick: datetime | None = None
        self.last_post: tuple[str, datetime] | None = None  # posted | incomplete | failed, when
        # posts that went out behind, corrected in their thread once complete (``correct``)
        self.corrections = (
            Corrections(
                ledger,
                request=request,
                build=build,
                correct=correct,
                clock=clock,
                owner=self.owner,
                keep=self._keep,
                claim_ttl=claim_ttl,
                recheck=recheck,
            )
            if correct is not None
            else None
        )

    async def due(self) -> list[Run]:
        """The runs that are due now, not posted and not waiting for a retry."""
        now = self._clock()
        subs = [
            s
            for s in await self._subscriptions.all_subscriptions()
            if self._platforms is None or s.platform in self._platforms
        ]
        self.subscription_count = len(subs)
        self._next_due = min((next_run(s, now) for s in subs), default=None)
        runs: list[Run] = []
        for sub in subs:
            for scheduled in due_runs(sub, now, self._keep):
                window = run_window(sub, scheduled)
                key = claim_key(sub, window)
                failed = self._failures.get(key)
                if key in self._posted or (failed is not None and failed[1] > now):
                    continue
                posted = await self._ledger.is_posted(key)
                # past grace a run is not started, but a thread already begun is finished
                late_start = not posted and now - scheduled > self.grace
                if late_start and not await self._ledger.parts(key):
                    continue
                if posted:
                    self._posted[key] = scheduled
                    if self.corrections is not None:
                        await self.corrections.found_posted(key, sub, window, scheduled)
                    continue
                late = now - scheduled > self._late_after
                runs.append(Run(sub, scheduled, window, key, late))
        return runs

    async def tick(self) -> int:
        """One pass: claim, build and post every due run. Returns the number of posts made."""
        for run in list(self._unrecorded.values()):
            await self._mark_posted(run)
        groups: dict[DigestRequest, list[Run]] = {}
        for run in await self.due():
            try:
                request = self._request(run.subscription, run.window)
            except (DigestError, ValueError) as exc:
                log.error(
                    "schedule.bad_subscription",
                    extra={"subscription": run.subscription.id, "error": str(exc)},
                )
                self._failed(run)
                continue
            groups.setdefault(request, []).append(run)
        posted = await asyncio.gather(*(self._serve(req, runs) for req, runs in groups.items()))
        if self.corrections is not None:
            await self.corrections.run()
        self._forget_old()
        self.last_tick = self._clock()
        return sum(posted)

    async def _serve(self, request: DigestRequest, runs: list[Run]) -> int:
        """Claim, build once and post one group; never raises but for cancellation."""
        claimed: list[Run] = []
        try:
            for run in runs:
                if await self._ledger.claim(run.key, self.owner, self._clock(), self._claim_ttl):
                    claimed.append(run)
            if not claimed:
                return 0
            try:
                digest = await self._build(request)
            except Exception:
                log.exception(
                    "schedule.build_failed", extra={"repo": request.repo, "runs": len(claimed)}
                )
                self.counters["build_errors"] += 1
                for run in claimed:
                    self._failed(run)
                await self._release_all(claimed)
                return 0
            self.counters["digests_built"] += 1
            quiet = is_quiet(digest)
            results = await asyncio.gather(*(self._post_one(run, digest, quiet) for run in claimed))
            return sum(results)
        except asyncio.CancelledError:
            await asyncio.shield(self._release_all(claimed))
            raise
        except DigestError as exc:  # the ledger is unreachable: claims expire, runs come back
            self._state_failed("claim", exc)
            await self._release_all(claimed)
            return 0

    async def _post_one(self, run: Run, digest: Digest, quiet: bool) -> int:
        """Post (or complete) one claimed run's thread; never raises but for cancellation."""
        try:
            found = await self._ledger.resume(run.key, self.owner, self._clock(), self._claim_ttl)
            done = await self._record_pending(run, found) if found is not None else ()
        except DigestError as exc:
            self._state_failed("extend", exc)
            return 0
        if found is None:
            log.warning("schedule.claim_lost", extra={"subscription": run.subscription.id})
            self.counters["claims_lost"] += 1
            return 0
        if done:
            log.info(
                "schedule.resuming",
                extra={"subscription": run.subscription.id, "key": run.key, "parts": len(done)},
            )
            self.counters["posts_resumed"] += 1
        sent = len(done)

        async def part_sent(index: int, message_id: str) -> None:
            nonlocal sent
            now = self._clock()
            try:
                recorded = await self._ledger.record_part(
                    run.key, self.owner, index, message_id, now, self._claim_ttl
                )
            except DigestError:  # out but not recorded: recorded on this replica's next try
                self._unrecorded_parts.setdefault(run.key, []).append((index, message_id))
                raise
            if not recorded:
                raise ClaimLost(run.key)
            sent = index + 1

        if quiet and run.subscription.quiet_days == "skip" and not done:
            return await self._skipped(run)
        try:
            await self._post(
                run.subscription, digest, late=run.late, quiet=quiet, done=done, part_sent=part_sent
            )
        except asyncio.CancelledError:
            await asyncio.shield(self._release_all([run]))  # the next claim completes the thread
            raise
        except ClaimLost:
            log.warning("schedule.claim_lost", extra={"subscription": run.subscription.id})
            self.counters["claims_lost"] += 1
            return 0
        except Exception:
            event, counter = (
                ("schedule.post_incomplete", "posts_incomplete")
                if sent
                else ("schedule.post_failed", "post_errors")
            )
            log.exception(
                event, extra={"subscription": run.subscription.id, "key": run.key, "parts": sent}
            )
            self.counters[counter] += 1
            self.last_post = ("incomplete" if sent else "failed", self._clock())
            self._failed(run)
            await self._release_all([run])
            return 0
        if self.corrections is not None and digest.behind and not quiet:
            try:  # before the run is marked posted, so any replica that sees it sees this
                await self.corrections.posted_behind(
                    run.key, run.subscription, run.window, run.scheduled
                )
            except DigestError as exc:  # not corrected: the post itself says it is behind
                self._state_failed("mark_behind", exc)
        await self._record(run)
        self.last_post = ("posted", self._clock())
        log.info(
            "schedule.posted",
            extra={
                "subscription": run.subscription.id,
                "key": run.key,
                "late": run.late,
                "quiet": quiet,
                "resumed_at": len(done),
            },
        )
        return 1

    async def _skipped(self, run: Run) -> int:
        """Mark a quiet run of a subscription that skips quiet days done, posting nothing."""
        await self._record(run, "quiet_skipped")
        log.info("schedule.quiet_skipped", extra={"subscription": run.subscription.id})
        return 0

    async def _record_pending(self, run: Run, done: tuple[str, ...]) -> tuple[str, ...]:
        """Record the parts this replica posted while the ledger was unreachable; the parts
        known to be out."""
        pending = self._unrecorded_parts.pop(run.key, [])
        for index, message_id in pending:
            if index != len(done):
                continue  # recorded meanwhile, or after a gap: not ours to add
            try:
                recorded = await self._ledger.record_part(
                    run.key, self.owner, index, message_id, self._clock(), self._claim_ttl
                )
            except DigestError:
                self._unrecorded_parts[run.key] = [p for p in pending if p[0] >= index]
                raise
            if not recorded:
                break
            done = (*done, message_id)
        return done

    async def _record(self, run: Run, counter: str = "posts_made") -> None:
        """Remember ``run`` as posted (or skipped), here and in the ledger, even when cancelled
        meanwhile."""
        self._posted[run.key] = run.scheduled  # this replica never posts it again
        self._failures.pop(run.key, None)
        self.counters[counter] += 1
        marking = asyncio.ensure_future(self._mark_posted(run))
        try:
            await asyncio.shield(marking)
        except asyncio.CancelledError:
            await marking  # the post is out: record it before giving up
            raise

    async def _mark_posted(self, run: Run) -> None:
        try:
            await self._ledger.mark_posted(run.key, self.owner, self._clock(), self._keep)
        except DigestError as exc:
            self._unrecorded[run.key] = run  # retried on the next pass
            self._state_failed("mark_posted", exc)
        else:
            self._unrecorded.pop(run.key, None)

    async def _release_all(self, runs: list[Run]) -> None:
        for run in runs:
            try:
                await self._ledger.release(run.key, self.owner)
            except DigestError as exc:  # the claim expires on its own
                self._state_failed("release", exc)

    def _state_failed(self, op: str, exc: DigestError) -> None:
        self.counters["state_errors"] += 1
        log.warning(
            "schedule.state_unavailable",
            extra={"op": op, "error": type(exc).__name__, "detail": str(exc)},
        )

    def _failed(self, run: Run) -> None:
        attempts = self._failures[run.key][0] + 1 if run.key in self._failures else 1
        retry_at = self._clock() + self._backoff.delay(attempts)
        self._failures[run.key] = (attempts, retry_at)
        log.info(
            "schedule.retry_scheduled",
            extra={
                "subscription": run.subscription.id,
                "attempt": attempts,
                "retry_at": retry_at.isoformat(),
            },
        )

    def _forget_old(self) -> None:
        horizon = self._clock() - self._keep
        for key, (_, retry_at) in list(self._failures.items()):
            if retry_at < horizon:
                del self._failures[key]
        for key, scheduled in list(self._posted.items()):
            if scheduled < horizon:
                del self._posted[key]
                self._unrecorded.pop(key, None)

    def next_wake(self) -> datetime:
        """When the next pass should run: the next run, a retry, or the polling interval."""
        now = self._clock()
        moments = [now + self._poll]
        if self._next_due is not None:
            moments.append(self._next_due)
        moments.extend(at for _, at in self._failures.values() if at > now)
        return min(moments)

    async def run_forever(self, stop: asyncio.Event) -> None:
        """Tick until ``stop`` is set; a pass in progress finishes before returning."""
        while not stop.is_set():
            try:
                await self.tick()
            except DigestError as exc:  # shared state unreachable: try again next time
                log.warning(
                    "schedule.tick_failed", extra={"error": type(exc).__name__, "detail": str(exc)}
                )
                self.counters["tick_errors"] += 1
            except Exception:
                log.exception("schedule.tick_failed")
                self.counters["tick_errors"] += 1
            delay = max(0.0, (self.next_wake() - self._clock()).total_seconds())
            await wait_or_stop(stop, delay, self._sleep)


async def wait_or_stop(stop: asyncio.Event, seconds: float, sleep: SleepFn) -> None:
    """Return after ``sleep(seconds)`` or as soon as ``stop`` is set, whichever comes first."""
    sleeper = asyncio.ensure_future(sleep(seconds))
    stopper = asyncio.ensure_future(stop.wait())
    _, pending = await asyncio.wait({sleeper, stopper}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
