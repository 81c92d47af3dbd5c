"""Corrections of daily posts that went out behind: once complete, exactly once, in the thread."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from digest.backends.redis.ledger import RedisLedger
from digest.backends.redis.state import RedisState
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.models import Counts, Digest, Window
from digest.schedule.ledger import PostLedger, StateLedger
from digest.schedule.scheduler import PartFn, Scheduler
from digest.schedule.subscription import Subscription
from digest.schedule.subscriptions import StateSubscriptions, SubscriptionStore
from tests.support.clock import Clock
from tests.support.redis_server import sandbox

DUE = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # 09:00 in Berlin
SUB = Subscription("slack", "C1", "vllm-project/vllm", "09:00", "Europe/Berlin")


@dataclass
class World:
    """Two replicas' shared ledger and subscriptions; what was built, posted and corrected."""

    clock: Clock
    ledger: PostLedger
    subscriptions: SubscriptionStore
    complete: bool = False  # whether the mirror has caught up
    posts: list[str] = field(default_factory=list)
    corrections: list[tuple[str, str, Counts]] = field(default_factory=list)  # owner, parent

    def request(self, sub: Subscription, window: Window) -> DigestRequest:
        return DigestRequest(sub.repo, window, sub.lang, "template", ())

    async def build(self, request: DigestRequest) -> Digest:
        counts = Counts(3, 1, 4, 1, 5) if self.complete else Counts(2, 1, 3, 0, 4)
        return Digest(
            repo=request.repo,
            window=request.window,
            lang=request.lang,
            counts=counts,
            sections=(),
            generated_at=self.clock(),
            synced_at=None,
            repo_url=f"https://github.com/{request.repo}",
            notes=() if self.complete else ("review comments after 06:00 UTC not synced yet",),
            behind=not self.complete,
        )

    def replica(self, owner: str) -> Scheduler:
        async def post(
            sub: Subscription,
            digest: Digest,
            *,
            late: bool,
            quiet: bool,
            done: tuple[str, ...],
            part_sent: PartFn,
        ) -> None:
            self.posts.append(owner)
            await part_sent(0, f"parent-{len(self.posts)}")
            await part_sent(1, f"reply-{len(self.posts)}")

        async def correct(sub: Subscription, digest: Digest, parent: str) -> None:
            await asyncio.sleep(0.01)  # let the other replica try meanwhile
            self.corrections.append((owner, parent, digest.counts))

        return Scheduler(
            subscriptions=self.subscriptions,
            ledger=self.ledger,
            request=self.request,
            build=self.build,
            post=post,
            clock=self.clock,
            owner=owner,
            correct=correct,
        )


@pytest.fixture(params=["redis", "sqlite"])
async def world(request: pytest.FixtureRequest) -> AsyncIterator[World]:
    clock = Clock(DUE)
    if request.param == "redis":
        async with sandbox(reply_s=30.0) as box:
            state = RedisState(box.client, prefix=box.prefix, timeout=30.0)
            ledger = RedisLedger(box.client, prefix=box.prefix, timeout=30.0)
            made = World(clock, ledger, StateSubscriptions(state))
            await made.subscriptions.put_subscription(SUB)
            yield made
        return
    sqlite = SQLiteState(":memory:", clock=clock)
    made = World(clock, StateLedger(sqlite), StateSubscriptions(sqlite))
    await made.subscriptions.put_subscription(SUB)
    yield made
    await sqlite.close()


async def test_a_post_that_went_out_behind_is_corrected_once_when_complete(world: World) -> None:
    """Two replicas: the post goes out once, behind; nothing is corrected while the mirror is
    still behind; once it has caught up, exactly one correction goes under the parent, with the
    complete figures, however often both replicas pass."""
    a, b = world.replica("a"), world.replica("b")
    await asyncio.gather(a.tick(), b.tick())
    assert len(world.posts) == 1
    world.clock.advance(timedelta(minutes=6))
    await asyncio.gather(a.tick(), b.tick())
    assert world.corrections == []
    world.complete = True
    for _ in range(3):
        world.clock.advance(timedelta(minutes=6))
        await asyncio.gather(a.tick(), b.tick())
    assert [(parent, counts) for _, parent, counts in world.corrections] == [
        ("parent-1", Counts(3, 1, 4, 1, 5))
    ]
    assert len(world.posts) == 1
    assert a.corrections is not None and b.corrections is not None
    assert a.corrections.pending == b.corrections.pending == 0


async def test_a_replica_that_did_not_post_corrects_when_the_poster_is_gone(
    world: World,
) -> None:
    """The replica that posted behind dies; another, finding the run posted, corrects it."""
    await world.replica("a").tick()
    assert world.posts == ["a"]
    world.complete = True
    world.clock.advance(timedelta(minutes=6))
    b = world.replica("b")
    await b.tick()
    await b.tick()
    assert [(owner, parent) for owner, parent, _ in world.corrections] == [("b", "parent-1")]


async def test_a_complete_post_is_never_corrected(world: World) -> None:
    """A post built from a complete sync gets no correction."""
    world.complete = True
    a = world.replica("a")
    await a.tick()
    world.clock.advance(timedelta(minutes=6))
    await a.tick()
    assert world.posts == ["a"] and world.corrections == []
