"""Command threads: recorded as they go out, completed by another replica after a crash."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from digest.backends.redis.ledger import RedisLedger
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.errors import StateUnavailable, ThreadTaken
from digest.models import Digest, Topic, Window
from digest.schedule.command_threads import CommandThreads, OpenThread, ThreadRecovery
from digest.schedule.ledger import PostLedger, StateLedger
from digest.schedule.scheduler import PartFn
from tests.support.clock import Clock
from tests.support.redis_server import sandbox
from tests.support.serve import sample_digest

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TOPIC = Topic("rocm", "AMD ROCm", "AMD ROCm", labels=("rocm",), keywords=("ROCm", "MI300"))
REQUEST = DigestRequest(
    repo="vllm-project/vllm",
    window=Window(START - timedelta(days=1), START, "Asia/Shanghai", "24h", ends_now=True),
    lang="zh",
    writer="template",
    topics=(TOPIC,),
    display_name="vLLM",
    config_fingerprint="abc123",
)
PARTS = 5  # the fake platform's thread: a parent and four replies


@dataclass
class Platform:
    """A chat platform that records what goes out; it can break off after some parts."""

    posted: list[tuple[str, str | None, int, str]] = field(default_factory=list)
    notes: list[tuple[str, str | None, str]] = field(default_factory=list)
    fail_at: int | None = None

    async def __call__(
        self,
        channel: str,
        thread: str | None,
        content: Digest | str,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        if isinstance(content, str):
            self.notes.append((channel, thread or (done[0] if done else None), content))
            return
        for index in range(len(done), PARTS):
            if self.fail_at == index:
                raise ConnectionError("the platform went away")
            message_id = f"{channel}-{index}"
            self.posted.append((channel, thread, index, message_id))
            await part_sent(index, message_id)


@dataclass
class World:
    clock: Clock
    ledger: PostLedger
    builds: list[DigestRequest] = field(default_factory=list)
    digest: Digest | None = None
    build_error: Exception | None = None

    async def build(self, request: DigestRequest) -> Digest:
        self.builds.append(request)
        if self.build_error is not None:
            raise self.build_error
        assert self.digest is not None
        return self.digest

    def journal(self, owner: str) -> CommandThreads:
        return CommandThreads(
            self.ledger, clock=self.clock, owner=owner, claim_ttl=timedelta(minutes=1)
        )

    def recovery(self, owner: str, platform: Platform | None = None) -> ThreadRecovery:
        return ThreadRecovery(
            self.journal(owner),
            posts={"slack": platform} if platform is not None else {},
            build=self.build,
            note=lambda thread, parts: f"cut short after {parts} of {thread.request.repo}",
            resume_within=timedelta(minutes=30),
        )


@pytest.fixture(params=["redis", "sqlite"])
async def world(request: pytest.FixtureRequest) -> AsyncIterator[World]:
    """A ledger on a real Redis or on SQLite state, on one hand-moved clock."""
    clock = Clock(START)
    digest = await sample_digest()
    if request.param == "redis":
        async with sandbox(reply_s=30.0) as box:
            yield World(
                clock, RedisLedger(box.client, prefix=box.prefix, timeout=30.0), digest=digest
            )
        return
    state = SQLiteState(":memory:", clock=clock)
    yield World(clock, StateLedger(state), digest=digest)
    await state.close()


async def post_parts(threads: CommandThreads, channel: str, upto: int) -> str:
    """Open a thread in ``channel`` and record its first ``upto`` parts, then "die"."""
    tracked = await threads.open(platform="slack", channel=channel, user="U1", request=REQUEST)
    assert tracked.thread is not None
    for index in range(upto):
        await tracked.sent(index, f"{channel}-{index}")
    return tracked.thread.key


def test_an_open_thread_survives_its_document() -> None:
    """What a replica writes is what the next one reads: channel, thread, requester, request."""
    thread = OpenThread("cmd:1", "slack", "C1", "U1", REQUEST, START, thread="1700000000.000100")
    assert OpenThread.from_dict("cmd:1", thread.to_dict()) == thread


async def test_a_thread_posted_in_full_is_closed(world: World) -> None:
    platform = Platform()
    threads = world.journal("a")
    tracked = await threads.open(platform="slack", channel="C1", user="U1", request=REQUEST)
    for index in range(PARTS):
        await tracked.sent(index, f"C1-{index}")
    await tracked.done()
    assert await world.ledger.open_threads() == {}
    world.clock.advance(timedelta(minutes=5))
    assert await world.recovery("b", platform).recover() == 0
    assert platform.posted == [] and platform.notes == []


async def test_a_dead_replicas_thread_is_completed_from_the_next_part(world: World) -> None:
    """A replica dies after two parts; once its claim expires another one posts parts 2-4 under
    the same parent, built from the same request, and closes the thread."""
    key = await post_parts(world.journal("a"), "C1", upto=2)
    platform = Platform()
    other = world.recovery("b", platform)
    assert await other.recover() == 0  # the claim is still alive: its replica may be posting
    world.clock.advance(timedelta(minutes=2))
    assert await other.recover() == 1
    assert [index for _, _, index, _ in platform.posted] == [2, 3, 4]
    assert world.builds == [REQUEST]
    assert await world.ledger.parts(key) == tuple(f"C1-{i}" for i in range(PARTS))
    assert await world.ledger.is_posted(key)
    assert await world.ledger.open_threads() == {}
    assert other.counters["threads_resumed"] == 1
    world.clock.advance(timedelta(minutes=2))
    assert await other.recover() == 0  # done once


async def test_a_thread_that_died_before_its_parent_is_posted_whole(world: World) -> None:
    await post_parts(world.journal("a"), "C1", upto=0)
    world.clock.advance(timedelta(minutes=2))
    platform = Platform()
    assert await world.recovery("b", platform).recover() == 1
    assert [index for _, _, index, _ in platform.posted] == list(range(PARTS))


async def test_a_thread_too_old_to_complete_tells_the_requester(world: World) -> None:
    """Past ``resume_within`` the rest of a stale digest is not posted: a note goes into the
    thread, under its parent, saying how far it got."""
    await post_parts(world.journal("a"), "C1", upto=3)
    world.clock.advance(timedelta(hours=1))
    platform = Platform()
    other = world.recovery("b", platform)
    assert await other.recover() == 1
    assert platform.posted == []
    assert platform.notes == [("C1", "C1-0", "cut short after 3 of vllm-project/vllm")]
    assert world.builds == []
    assert await world.ledger.open_threads() == {}
    assert other.counters["threads_cut_short"] == 1


async def test_a_digest_that_cannot_be_built_again_tells_the_requester(world: World) -> None:
    await post_parts(world.journal("a"), "C1", upto=1)
    world.clock.advance(timedelta(minutes=2))
    world.build_error = ValueError("the topic is gone")
    platform = Platform()
    assert await world.recovery("b", platform).recover() == 1
    assert platform.notes == [("C1", "C1-0", "cut short after 1 of vllm-project/vllm")]


async def test_a_failed_completion_is_tried_again_on_the_next_pass(world: World) -> None:
    key = await post_parts(world.journal("a"), "C1", upto=1)
    world.clock.advance(timedelta(minutes=2))
    platform = Platform(fail_at=3)
    other = world.recovery("b", platform)
    assert await other.recover() == 0
    assert key in await world.ledger.open_threads()
    platform.fail_at = None
    assert await other.recover() == 1
    assert [index for _, _, index, _ in platform.posted] == [1, 2, 3, 4]  # 1, 2 once; then 3, 4


async def test_only_the_platforms_this_replica_serves_are_recovered(world: World) -> None:
    key = await post_parts(world.journal("a"), "C1", upto=1)
    world.clock.advance(timedelta(minutes=2))
    assert await world.recovery("discord-only").recover() == 0
    assert key in await world.ledger.open_threads()


async def test_a_stopping_replica_hands_its_thread_over_at_once(world: World) -> None:
    tracked = await world.journal("a").open(
        platform="slack", channel="C1", user="U1", request=REQUEST
    )
    await tracked.sent(0, "C1-0")
    await tracked.stopped()
    platform = Platform()
    assert await world.recovery("b", platform).recover() == 1  # no wait for the claim to expire
    assert [index for _, _, index, _ in platform.posted] == [1, 2, 3, 4]


async def test_a_thread_taken_over_stops_its_slow_poster(world: World) -> None:
    """A poster that stalled past its claim learns at its next part that another replica took
    the thread over, and stops before doubling a part."""
    tracked = await world.journal("a").open(
        platform="slack", channel="C1", user="U1", request=REQUEST
    )
    await tracked.sent(0, "C1-0")
    world.clock.advance(timedelta(minutes=2))
    assert await world.recovery("b", Platform()).recover() == 1
    with pytest.raises(ThreadTaken):
        await tracked.sent(1, "C1-1-late")


async def test_an_unreadable_thread_is_dropped(world: World) -> None:
    await world.ledger.open_thread("cmd:broken", {"platform": "slack"}, timedelta(days=1))
    assert await world.recovery("b", Platform()).recover() == 0
    assert await world.ledger.open_threads() == {}


class DownLedger(StateLedger):
    """A ledger whose storage is unreachable."""

    async def claim(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        raise StateUnavailable("redis is down")


async def test_with_the_ledger_down_a_thread_goes_out_untracked() -> None:
    clock = Clock(START)
    state = SQLiteState(":memory:", clock=clock)
    try:
        threads = CommandThreads(DownLedger(state), clock=clock)
        tracked = await threads.open(platform="slack", channel="C1", user="U1", request=REQUEST)
        assert tracked.thread is None
        await tracked.sent(0, "C1-0")  # no error: the post goes on
        await tracked.done()
    finally:
        await state.close()
