"""The exactly-once daily poster (docs/design.md), on a real Redis and on SQLite state."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import random
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from redis.asyncio import Redis

from digest.backends.redis.ledger import RedisLedger
from digest.backends.redis.state import RedisState
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.errors import StateUnavailable
from digest.models import Counts, Digest, Window
from digest.schedule.ledger import PostLedger, StateLedger
from digest.schedule.scheduler import Backoff, PartFn, Scheduler, is_quiet
from digest.schedule.subscription import Subscription, claim_key, run_window, runs_between
from digest.schedule.subscriptions import StateSubscriptions, SubscriptionStore
from tests.support.clock import Clock
from tests.support.redis_server import RedisServer, connect, find_binary, free_port, sandbox

START = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)


@dataclass
class World:
    """Shared state, a clock, and what was built and posted."""

    clock: Clock
    ledger: PostLedger
    subscriptions: SubscriptionStore
    builds: list[DigestRequest] = field(default_factory=list)
    posts: list[tuple[str, datetime, bool, bool]] = field(default_factory=list)
    quiet_repos: set[str] = field(default_factory=set)
    build_failures: int = 0
    post_failures: int = 0

    def request(self, sub: Subscription, window: Window) -> DigestRequest:
        return DigestRequest(
            repo=sub.repo, window=window, lang=sub.lang, writer=sub.writer or "template", topics=()
        )

    async def build(self, request: DigestRequest) -> Digest:
        if self.build_failures:
            self.build_failures -= 1
            raise RuntimeError("writer exploded")
        self.builds.append(request)
        quiet = request.repo in self.quiet_repos
        return Digest(
            repo=request.repo,
            window=request.window,
            lang=request.lang,
            counts=Counts(0, 0, 0, 0, 0) if quiet else Counts(3, 1, 4, 1, 5),
            sections=(),
            generated_at=self.clock(),
            synced_at=None,
            repo_url=f"https://github.com/{request.repo}",
        )

    async def post(
        self,
        sub: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        if self.post_failures:
            self.post_failures -= 1
            raise ConnectionError("chat platform unavailable")
        self.posts.append((sub.id, digest.window.end, late, quiet))
        await part_sent(0, f"m-{len(self.posts)}")

    def scheduler(self, **kw: object) -> Scheduler:
        options: dict[str, object] = {
            "subscriptions": self.subscriptions,
            "ledger": self.ledger,
            "request": self.request,
            "build": self.build,
            "post": self.post,
            "clock": self.clock,
        }
        options.update(kw)
        return Scheduler(**options)  # type: ignore[arg-type]


@pytest.fixture(params=["redis", "sqlite"])
async def world(request: pytest.FixtureRequest) -> AsyncIterator[World]:
    """Scheduler dependencies on a real Redis (clock-driven ledger) or on SQLite state."""
    clock = Clock(START)
    if request.param == "redis":
        async with sandbox(reply_s=30.0) as box:
            # Generous timeouts: these tests are about claims and builds, and a loaded machine
            # must not turn a slow reply into an outage (the outage tests set their own).
            state = RedisState(box.client, prefix=box.prefix, timeout=30.0)
            ledger = RedisLedger(box.client, prefix=box.prefix, timeout=30.0)
            yield World(clock, ledger, StateSubscriptions(state))
        return
    sqlite = SQLiteState(":memory:", clock=clock)
    yield World(clock, StateLedger(sqlite), StateSubscriptions(sqlite))
    await sqlite.close()


def berlin(channel: str = "C1", time: str = "09:00", **kw: object) -> Subscription:
    fields: dict[str, object] = {
        "platform": "slack",
        "channel": channel,
        "repo": "vllm-project/vllm",
        "time": time,
        "timezone": "Europe/Berlin",
    }
    fields.update(kw)
    return Subscription(**fields)  # type: ignore[arg-type]


async def test_posts_once_at_the_scheduled_time(world: World) -> None:
    """Nothing before 09:00 local; one post at 09:00; nothing more that day."""
    await world.subscriptions.put_subscription(berlin())
    sched = world.scheduler()
    world.clock.set(datetime(2026, 3, 2, 7, 59, tzinfo=UTC))
    assert await sched.tick() == 0
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await sched.tick() == 1
    world.clock.advance(timedelta(hours=1))
    assert await sched.tick() == 0
    assert world.posts == [
        ("slack:C1:vllm-project/vllm", datetime(2026, 3, 2, 8, 0, tzinfo=UTC), False, False)
    ]


async def test_hundred_subscriptions_at_one_time_share_one_build(world: World) -> None:
    """100 channels due together for the same repository and language cause one build."""
    for n in range(100):
        await world.subscriptions.put_subscription(berlin(f"C{n:03d}"))
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await world.scheduler().tick() == 100
    assert len(world.builds) == 1
    assert len({p[0] for p in world.posts}) == 100


async def test_different_languages_get_their_own_build(world: World) -> None:
    """Channels due together in zh and en share nothing but the schedule."""
    await world.subscriptions.put_subscription(berlin("C1"))
    await world.subscriptions.put_subscription(berlin("C2", lang="zh"))
    await world.subscriptions.put_subscription(berlin("C3", lang="zh"))
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await world.scheduler().tick() == 3
    assert sorted(b.lang for b in world.builds) == ["en", "zh"]


async def test_failed_post_is_released_and_retried_with_backoff(world: World) -> None:
    """A failing post is retried after 1, 2, then 4 minutes and posted once it works."""
    await world.subscriptions.put_subscription(berlin())
    sched = world.scheduler(backoff=Backoff(first=timedelta(minutes=1)))
    world.post_failures = 3
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    attempts: list[datetime] = []
    while not world.posts:
        assert world.clock() < datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        before = world.post_failures
        await sched.tick()
        if world.post_failures != before or world.posts:
            attempts.append(world.clock())
        world.clock.advance(timedelta(seconds=30))
    base = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    assert [a - base for a in attempts] == [timedelta(minutes=m) for m in (0, 1, 3, 7)]
    assert len(world.posts) == 1


async def test_a_failed_post_can_be_taken_over_by_another_replica(world: World) -> None:
    """The claim of a failed post is released at once, so another replica posts it."""
    await world.subscriptions.put_subscription(berlin())
    first, second = world.scheduler(), world.scheduler()
    world.post_failures = 1
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await first.tick() == 0
    assert await second.tick() == 1
    assert await first.tick() == 0


async def test_failed_build_is_retried(world: World) -> None:
    """A build that fails releases every claim of its group and is retried."""
    await world.subscriptions.put_subscription(berlin("C1"))
    await world.subscriptions.put_subscription(berlin("C2"))
    sched = world.scheduler()
    world.build_failures = 1
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await sched.tick() == 0
    world.clock.advance(timedelta(minutes=1))
    assert await sched.tick() == 2
    assert sched.counters["build_errors"] == 1


async def test_missed_post_is_caught_up_late_within_grace(world: World) -> None:
    """After three hours of downtime the 09:00 post is made, flagged late."""
    await world.subscriptions.put_subscription(berlin())
    world.clock.set(datetime(2026, 3, 2, 11, 0, tzinfo=UTC))
    assert await world.scheduler().tick() == 1
    assert world.posts[0][2] is True


async def test_post_older_than_grace_is_skipped(world: World) -> None:
    """After seven hours of downtime the 09:00 post is not made any more."""
    await world.subscriptions.put_subscription(berlin())
    world.clock.set(datetime(2026, 3, 2, 15, 0, tzinfo=UTC))
    assert await world.scheduler(grace=timedelta(hours=6)).tick() == 0


async def test_new_subscription_does_not_catch_up_earlier_runs(world: World) -> None:
    """Subscribing at 10:00 for 09:00 starts with tomorrow's post."""
    await world.subscriptions.put_subscription(berlin(since=datetime(2026, 3, 2, 9, 0, tzinfo=UTC)))
    sched = world.scheduler()
    world.clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    assert await sched.tick() == 0
    world.clock.set(datetime(2026, 3, 3, 8, 0, tzinfo=UTC))
    assert await sched.tick() == 1


async def test_quiet_day_is_flagged(world: World) -> None:
    """A window with no activity is posted with the quiet flag."""
    world.quiet_repos.add("vllm-project/vllm")
    await world.subscriptions.put_subscription(berlin())
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await world.scheduler().tick()
    assert world.posts[0][3] is True


async def test_a_quiet_day_is_skipped_once_when_the_subscription_says_so(world: World) -> None:
    """quiet:skip posts nothing for a quiet window and marks it done on every replica, while a
    busy day is posted; the default subscription beside it still posts its quiet note."""
    world.quiet_repos.add("vllm-project/vllm")
    await world.subscriptions.put_subscription(berlin(quiet_days="skip"))
    await world.subscriptions.put_subscription(berlin("C2"))
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    first, second = world.scheduler(), world.scheduler()
    assert await first.tick() == 1 and await second.tick() == 0
    assert [(p[0], p[3]) for p in world.posts] == [("slack:C2:vllm-project/vllm", True)]
    assert first.counters["quiet_skipped"] == 1 and second.counters["quiet_skipped"] == 0
    world.quiet_repos.clear()
    world.clock.set(datetime(2026, 3, 3, 8, 0, tzinfo=UTC))
    assert await second.tick() == 2
    assert {p[0] for p in world.posts[1:]} == {
        "slack:C1:vllm-project/vllm",
        "slack:C2:vllm-project/vllm",
    }


async def test_a_scope_subscription_posts_one_thread_a_day_beside_its_repository(
    world: World,
) -> None:
    """A channel subscribed to vLLM and to scope:serving gets each once a day, from two
    replicas: a scope's subscription is its own, stored and claimed under its subject."""
    await world.subscriptions.put_subscription(berlin())
    await world.subscriptions.put_subscription(berlin(scope="serving"))
    await world.subscriptions.put_subscription(
        berlin(repos=("vllm-project/vllm", "sgl-project/sglang"))
    )
    stored = await world.subscriptions.channel_subscriptions("slack", "C1")
    assert sorted(s.subject for s in stored) == [
        "scope:serving",
        "vllm-project/vllm",
        "vllm-project/vllm,sgl-project/sglang",
    ]
    replicas = (world.scheduler(), world.scheduler())
    for day in (2, 3):
        world.clock.set(datetime(2026, 3, day, 8, 0, tzinfo=UTC))
        assert sum([await r.tick() for r in replicas]) == 3
    assert Counter(p[0] for p in world.posts) == {
        "slack:C1:vllm-project/vllm": 2,
        "slack:C1:scope:serving": 2,
        "slack:C1:vllm-project/vllm,sgl-project/sglang": 2,
    }
    assert await world.subscriptions.delete_subscription("slack", "C1", "scope:serving")
    assert len(await world.subscriptions.channel_subscriptions("slack", "C1")) == 2


def test_a_degraded_empty_digest_is_not_a_quiet_day() -> None:
    """Zero counts with a note (an incomplete search, say) is posted in full, not as one line."""
    window = Window(START - timedelta(days=1), START, "UTC")
    empty = Digest("o/r", window, "en", Counts(0, 0, 0, 0, 0), (), START, None, "https://x")
    assert is_quiet(empty)
    assert not is_quiet(dataclasses.replace(empty, notes=("counts may be low",)))
    assert not is_quiet(dataclasses.replace(empty, counts=Counts(0, 0, 0, 1, 0)))


async def test_claim_lost_during_a_slow_build_is_not_posted_twice(world: World) -> None:
    """A replica whose claim expired while it built does not post what another replica posted."""
    await world.subscriptions.put_subscription(berlin())
    other = world.scheduler(owner="other")

    async def slow_build(request: DigestRequest) -> Digest:
        world.clock.advance(timedelta(minutes=11))
        assert await other.tick() == 1
        return await world.build(request)

    slow = world.scheduler(owner="slow", build=slow_build, claim_ttl=timedelta(minutes=10))
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await slow.tick() == 0
    assert len(world.posts) == 1
    assert slow.counters["claims_lost"] == 1


async def test_cancelled_post_releases_its_claim(world: World) -> None:
    """A pass cancelled in the middle of a post leaves the run to the next pass."""
    await world.subscriptions.put_subscription(berlin())
    started = asyncio.Event()

    async def hanging_post(
        sub: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        started.set()
        await asyncio.Event().wait()

    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    task = asyncio.create_task(world.scheduler(post=hanging_post).tick())
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await world.scheduler().tick() == 1


@dataclass
class Thread:
    """A post of four parts that breaks once, at part ``breaks_at``; what it sent, and the
    parts each pass resumed after."""

    breaks_at: int | None = 2
    parts: list[tuple[str, int, str]] = field(default_factory=list)
    resumed: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    async def __call__(
        self,
        sub: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        self.resumed.append((sub.channel, done))
        for index in range(len(done), 4):
            if index == self.breaks_at:
                self.breaks_at = None
                raise ConnectionError("connection reset in the middle of the thread")
            message = done[0] if done and index == 0 else f"m{index}"
            self.parts.append((sub.channel, index, message))
            await part_sent(index, message)


async def test_thread_that_breaks_is_completed_from_its_next_part(world: World) -> None:
    """A thread that breaks after two parts is completed on a later pass from the third part,
    under the same parent, with no part posted twice; then the run is posted for good."""
    await world.subscriptions.put_subscription(berlin())
    thread = Thread()
    sched = world.scheduler(post=thread)
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await sched.tick() == 0
    assert sched.counters["posts_incomplete"] == 1 and sched.counters["post_errors"] == 0
    world.clock.advance(timedelta(minutes=30))  # past the retry's backoff
    assert await world.scheduler(post=thread).tick() == 1
    assert [done for _, done in thread.resumed] == [(), ("m0", "m1")]
    assert [index for _, index, _ in thread.parts] == [0, 1, 2, 3]
    assert await world.ledger.parts(
        claim_key(berlin(), run_window(berlin(), datetime(2026, 3, 2, 8, 0, tzinfo=UTC)))
    ) == ("m0", "m1", "m2", "m3")
    assert await world.scheduler(post=thread).tick() == 0


async def test_a_thread_begun_is_finished_past_grace_by_another_replica(world: World) -> None:
    """A replica dies after the parent and one part; nobody comes back for seven hours (past
    the six hours' grace): another replica finishes the thread from its third part, under the
    same parent, and a run past grace that was never begun is still not started."""
    await world.subscriptions.put_subscription(berlin())
    await world.subscriptions.put_subscription(berlin("C2", time="09:30"))
    thread = Thread()
    grace = timedelta(hours=6)
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))  # 09:00 Berlin: C1 is due
    assert await world.scheduler(post=thread, grace=grace).tick() == 0
    world.clock.set(datetime(2026, 3, 2, 15, 0, tzinfo=UTC))  # 7 hours later, C2's run unbegun
    other = world.scheduler(post=thread, grace=grace)
    assert await other.tick() == 1
    assert thread.resumed == [("C1", ()), ("C1", ("m0", "m1"))]
    assert thread.parts == [("C1", 0, "m0"), ("C1", 1, "m1"), ("C1", 2, "m2"), ("C1", 3, "m3")]
    run = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    assert await world.ledger.parts(claim_key(berlin(), run_window(berlin(), run))) == (
        "m0",
        "m1",
        "m2",
        "m3",
    )
    assert await other.tick() == 0  # done for good; C2's late run stays unposted


async def test_cancel_in_the_thread_lets_the_next_pass_complete_it(world: World) -> None:
    """A pass cancelled in the middle of the thread releases the run with its parent recorded:
    the next pass posts the rest under that parent, never a second parent."""
    await world.subscriptions.put_subscription(berlin())
    in_thread = asyncio.Event()

    resumed_from: list[tuple[str, ...]] = []

    async def slow_thread(
        sub: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        world.posts.append((sub.id, digest.window.end, late, quiet))
        await part_sent(0, "parent")
        in_thread.set()
        await asyncio.Event().wait()

    async def rest_of_thread(
        sub: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        resumed_from.append(done)
        await part_sent(1, "reply")

    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    task = asyncio.create_task(world.scheduler(post=slow_thread).tick())
    await asyncio.wait_for(in_thread.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await world.scheduler(post=rest_of_thread).tick() == 1
    assert resumed_from == [("parent",)] and len(world.posts) == 1


async def test_run_forever_sleeps_until_the_next_run_and_stops(world: World) -> None:
    """run_forever posts each day at the scheduled time and returns when stopped."""
    await world.subscriptions.put_subscription(berlin())
    stop = asyncio.Event()
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        world.clock.advance(timedelta(seconds=seconds))
        if len(world.posts) >= 3:
            stop.set()
        await asyncio.sleep(0)

    sched = world.scheduler(sleep=sleep, poll=timedelta(hours=12))
    await asyncio.wait_for(sched.run_forever(stop), 10)
    assert [p[1] for p in world.posts] == [
        datetime(2026, 3, d, 8, 0, tzinfo=UTC) for d in (1, 2, 3)
    ]
    assert max(waits) <= 12 * 3600


async def test_ledger_claims_are_exclusive_and_expire(world: World) -> None:
    """A held claim blocks others until it expires; a posted run can never be claimed."""
    ledger, now, ttl = world.ledger, world.clock(), timedelta(minutes=10)
    assert await ledger.claim("k", "a", now, ttl)
    assert not await ledger.claim("k", "b", now, ttl)
    world.clock.advance(timedelta(minutes=11))
    assert await ledger.claim("k", "b", world.clock(), ttl)
    assert not await ledger.extend("k", "a", world.clock(), ttl)
    await ledger.release("k", "a")
    assert not await ledger.claim("k", "c", world.clock(), ttl)
    await ledger.mark_posted("k", "b", world.clock(), timedelta(days=1))
    await ledger.release("k", "b")
    assert await ledger.is_posted("k")
    world.clock.advance(timedelta(hours=1))
    assert not await ledger.claim("k", "c", world.clock(), ttl)


# -- the 60-day simulation ---------------------------------------------------------------------


class Crash(BaseException):
    """A replica dying: nothing is released, nothing else runs."""


SIM_SUBSCRIPTIONS = [
    Subscription("slack", "C-berlin-0230", "vllm-project/vllm", "02:30", "Europe/Berlin"),
    Subscription("slack", "C-berlin-0900", "vllm-project/vllm", "09:00", "Europe/Berlin"),
    Subscription("discord", "1009000", "vllm-project/vllm", "09:00", "Europe/Berlin", lang="zh"),
    Subscription("discord", "2000130", "vllm-project/vllm", "01:30", "America/New_York"),
    Subscription("slack", "C-ny-0230", "sgl-project/sglang", "02:30", "America/New_York"),
    Subscription("slack", "C-ny-0900", "vllm-project/vllm", "09:00", "America/New_York"),
    Subscription("slack", "C-sh-1121", "vllm-project/vllm", "11:21", "Asia/Shanghai"),
    Subscription(
        "slack", "C-berlin-weekly", "vllm-project/vllm", "09:00", "Europe/Berlin", cadence="weekly"
    ),
    Subscription(  # DST changes fall on Sundays: this one is due inside the gap and the fold
        "slack",
        "C-berlin-sun",
        "vllm-project/vllm",
        "02:30",
        "Europe/Berlin",
        cadence="weekly",
        weekday=6,
    ),
    Subscription(
        "discord",
        "3000130",
        "vllm-project/vllm",
        "01:30",
        "America/New_York",
        cadence="weekly",
        weekday=6,
    ),
    Subscription(
        "slack",
        "C-ny-weekdays",
        "vllm-project/vllm",
        "09:00",
        "America/New_York",
        cadence="weekdays",
    ),
    # a scope and an ad hoc pair beside the channel's own repository: one thread a day each
    Subscription(
        "slack", "C-berlin-0900", "vllm-project/vllm", "09:00", "Europe/Berlin", scope="serving"
    ),
    Subscription(
        "discord",
        "1009000",
        "vllm-project/vllm",
        "02:30",
        "Europe/Berlin",
        repos=("vllm-project/vllm", "sgl-project/sglang"),
    ),
]
# 60 days each, so that every DST change of Berlin and New York in 2026 is crossed
SEASONS = {
    "spring": (datetime(2026, 2, 20, tzinfo=UTC), (date(2026, 3, 8), date(2026, 3, 29))),
    "autumn": (datetime(2026, 10, 1, tzinfo=UTC), (date(2026, 10, 25), date(2026, 11, 1))),
}
CRASH_POINTS = ("build", "before_parent", "in_thread")
THREAD_PARTS = 4


@dataclass
class Replica:
    scheduler: Scheduler
    wake: datetime
    alive: bool = True
    restart_at: datetime | None = None


@dataclass
class Simulation:
    """Three replicas with their own Redis connections, one clock, random crashes."""

    clock: Clock
    rng: random.Random
    subscriptions: SubscriptionStore
    ledgers: list[RedisLedger]
    parents: Counter[tuple[str, datetime]] = field(default_factory=Counter)
    parts: defaultdict[tuple[str, datetime], list[int]] = field(
        default_factory=lambda: defaultdict(list)
    )
    crashes: Counter[str] = field(default_factory=Counter)
    builds: int = 0
    ticks: int = 0

    def replica(self, slot: int) -> Replica:
        me: Replica
        clock, rng = self.clock, self.rng

        def maybe_crash(point: str) -> None:
            if not me.alive:
                raise Crash
            if rng.random() < 0.05:
                self.crashes[point] += 1
                me.alive = False
                me.restart_at = clock() + timedelta(minutes=rng.randint(1, 240))
                raise Crash

        def request(sub: Subscription, window: Window) -> DigestRequest:
            return DigestRequest(sub.repo, window, sub.lang, sub.writer or "template", ())

        async def build(req: DigestRequest) -> Digest:
            maybe_crash("build")  # the group's runs are claimed: a crash leaves the claims
            self.builds += 1
            return Digest(
                req.repo,
                req.window,
                req.lang,
                Counts(1, 0, 0, 0, 0),
                (),
                clock(),
                None,
                f"https://github.com/{req.repo}",
            )

        async def post(
            sub: Subscription,
            digest: Digest,
            *,
            late: bool,
            quiet: bool,
            done: tuple[str, ...],
            part_sent: PartFn,
        ) -> None:
            run = (sub.id, digest.window.end)
            if not done:
                maybe_crash("before_parent")
                self.parents[run] += 1
                self.parts[run].append(0)
                await part_sent(0, f"{sub.id}-0")
            for index in range(max(1, len(done)), THREAD_PARTS):
                maybe_crash("in_thread")
                self.parts[run].append(index)
                await part_sent(index, f"{sub.id}-{index}")

        me = Replica(
            Scheduler(
                subscriptions=self.subscriptions,
                ledger=self.ledgers[slot],
                request=request,
                build=build,
                post=post,
                clock=clock,
                poll=timedelta(hours=2),
            ),
            wake=clock(),
        )
        return me

    async def run(self, days: int) -> None:
        end = self.clock() + timedelta(days=days)
        replicas = [self.replica(slot) for slot in range(len(self.ledgers))]
        while self.clock() < end:
            now = self.clock()
            for slot, rep in enumerate(replicas):
                if not rep.alive and rep.restart_at is not None and rep.restart_at <= now:
                    replicas[slot] = self.replica(slot)
            awake = [r for r in replicas if r.alive and r.wake <= now]
            self.ticks += len(awake)
            await asyncio.gather(
                *(r.scheduler.tick() for r in self.rng.sample(awake, len(awake))),
                return_exceptions=True,
            )
            for rep in awake:
                rep.wake = rep.scheduler.next_wake()
            self.clock.set(min(r.wake if r.alive else r.restart_at or r.wake for r in replicas))


@pytest.mark.parametrize("season", sorted(SEASONS))
async def test_sixty_days_three_replicas_random_crashes_exactly_once(season: str) -> None:
    """Three replicas on one Redis over 60 days across DST changes, crashing between claim and
    post and in the middle of threads: exactly one parent per subscription per day, every
    thread in order with no part twice, and every thread begun finished."""
    start, dst_days = SEASONS[season]
    async with sandbox() as box, contextlib.AsyncExitStack() as stack:
        subs = StateSubscriptions(RedisState(box.client, prefix=box.prefix))
        for sub in SIM_SUBSCRIPTIONS:
            await subs.put_subscription(sub)
        ledgers = [
            RedisLedger(await stack.enter_async_context(connect(box.url)), prefix=box.prefix)
            for _ in range(3)
        ]
        sim = Simulation(Clock(start), random.Random(f"{season}-2026"), subs, ledgers)
        await sim.run(days=60)
        end = sim.clock()

    expected = {
        (sub.id, run)
        for sub in SIM_SUBSCRIPTIONS
        for run in runs_between(sub, start, end - timedelta(hours=6))
    }
    scheduled = {
        (sub.id, run) for sub in SIM_SUBSCRIPTIONS for run in runs_between(sub, start, end)
    }
    assert {k: n for k, n in sim.parents.items() if n > 1} == {}
    assert expected - set(sim.parents) == set()
    complete = list(range(THREAD_PARTS))
    # no part twice and none out of order, ever, and every thread begun is finished
    assert {run: parts for run, parts in sim.parts.items() if parts != complete[: len(parts)]} == {}
    assert len([parts for parts in sim.parts.values() if parts != complete]) == 0
    assert set(sim.parents) <= scheduled
    assert all(sim.crashes[point] >= 3 for point in CRASH_POINTS), sim.crashes
    assert sim.ticks < 10_000
    for sub in SIM_SUBSCRIPTIONS:  # one post on each scheduled local date, DST days included
        days = Counter(run.astimezone(sub.tz).date() for (sid, run) in sim.parents if sid == sub.id)
        assert max(days.values()) == 1
        assert all(sub.posts_on(d) for d in days), (sub.id, sorted(days))
        assert all(days[d] == sub.posts_on(d) for d in dst_days), (sub.id, sorted(days))
        if sub.cadence == "weekly":  # once a week, a week apart, whatever the offset did
            posted = sorted(days)
            assert len(posted) >= 8
            assert {b - a for a, b in itertools.pairwise(posted)} == {timedelta(days=7)}


def test_claim_keys_in_the_simulation_differ_per_day() -> None:
    """Each subscription and scheduled day has its own claim key, even across DST changes."""
    for start, _ in SEASONS.values():
        for sub in SIM_SUBSCRIPTIONS:
            runs = runs_between(sub, start, start + timedelta(days=60))
            keys = {claim_key(sub, run_window(sub, r)) for r in runs}
            assert len(keys) == len(runs) >= {"daily": 59, "weekdays": 41, "weekly": 8}[sub.cadence]


async def test_replica_serves_only_its_platforms(world: World) -> None:
    """A Slack-only replica leaves Discord subscriptions to a replica that has Discord."""
    await world.subscriptions.put_subscription(berlin("C1"))
    await world.subscriptions.put_subscription(berlin("123", platform="discord"))
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    assert await world.scheduler(platforms=("slack",)).tick() == 1
    assert await world.scheduler(platforms=("discord",)).tick() == 1
    assert sorted(p[0].split(":")[0] for p in world.posts) == ["discord", "slack"]


async def test_unreachable_ledger_posts_nothing_and_recovers(world: World) -> None:
    """While Redis cannot be reached a pass fails and posts nothing; then the run is posted once."""
    await world.subscriptions.put_subscription(berlin())
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    dead = Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.1)
    try:
        with pytest.raises(StateUnavailable):
            await world.scheduler(ledger=RedisLedger(dead, timeout=0.3)).tick()
    finally:
        await dead.aclose()
    assert world.posts == []
    assert await world.scheduler().tick() == 1


async def test_redis_dying_during_a_build_posts_nothing_until_it_is_back() -> None:
    """Redis stops after the claim: the post waits (no unrecorded post); after a restart it is
    posted once."""
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server")
    server = RedisServer(binary)
    server.start()
    clock = Clock(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    sqlite = SQLiteState(":memory:", clock=clock)
    try:
        async with connect(server.url) as client:
            ledger = RedisLedger(client, timeout=0.3, retry_after=0.0)
            world = World(clock, ledger, StateSubscriptions(sqlite))
            await world.subscriptions.put_subscription(berlin())

            async def build_then_lose_redis(request: DigestRequest) -> Digest:
                server.stop()
                return await world.build(request)

            sched = world.scheduler(build=build_then_lose_redis)
            assert await sched.tick() == 0
            assert world.posts == [] and sched.counters["state_errors"] >= 1
            server.start()
            clock.advance(timedelta(minutes=1))
            assert await world.scheduler().tick() == 1
            assert await sched.tick() == 0
            assert len(world.posts) == 1
    finally:
        await sqlite.close()
        server.close()


class CuttableLink:
    """A TCP relay to Redis on 127.0.0.1 whose connections can be cut and let through again."""

    def __init__(self, url: str) -> None:
        self._target = urlsplit(url)
        self._pipes: set[asyncio.StreamWriter] = set()
        self.open = True
        self.url = ""

    async def __aenter__(self) -> CuttableLink:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = self._target._replace(netloc=f"127.0.0.1:{port}").geturl()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cut()
        self._server.close()
        await self._server.wait_closed()

    def cut(self) -> None:
        """Drop every connection and refuse new ones until ``open`` is set again."""
        self.open = False
        for writer in self._pipes:
            writer.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.open:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection(
            self._target.hostname, self._target.port
        )
        self._pipes |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._pipes -= {writer, up_writer}


async def test_post_recorded_while_redis_is_cut_off_is_recorded_on_the_next_pass() -> None:
    """The link to Redis drops just as the parent goes out: the replica records that parent on
    its next pass and completes the thread under it, so no replica posts a second parent."""
    clock = Clock(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    async with sandbox() as box, CuttableLink(box.url) as link, connect(link.url) as far:
        subs = StateSubscriptions(RedisState(box.client, prefix=box.prefix))
        world = World(clock, RedisLedger(box.client, prefix=box.prefix), subs)
        await subs.put_subscription(berlin())

        replies: list[tuple[str, ...]] = []

        async def post_then_lose_redis(
            sub: Subscription,
            digest: Digest,
            *,
            late: bool,
            quiet: bool,
            done: tuple[str, ...],
            part_sent: PartFn,
        ) -> None:
            if not done:
                link.cut()
                world.posts.append((sub.id, digest.window.end, late, quiet))
                await part_sent(0, "parent")
            replies.append(done)
            await part_sent(1, "reply")

        cut_off = world.scheduler(
            ledger=RedisLedger(far, prefix=box.prefix, timeout=0.5, retry_after=0.0),
            post=post_then_lose_redis,
        )
        assert await cut_off.tick() == 0
        assert cut_off.counters["state_errors"] >= 1
        key = claim_key(berlin(), run_window(berlin(), world.posts[0][1]))
        assert not await world.ledger.is_posted(key) and await world.ledger.parts(key) == ()
        link.open = True
        clock.advance(timedelta(minutes=1))
        assert await cut_off.tick() == 1
        assert replies == [("parent",)]
        assert await world.ledger.parts(key) == ("parent", "reply")
        clock.advance(timedelta(minutes=11))  # the claim would have expired by now
        assert await world.scheduler().tick() == 0
    assert len(world.posts) == 1
