"""The sync gate: one sync per repository at a time, recent syncs reused, across replicas."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from digest.backends.redis.state import RedisState
from digest.backends.sqlite.state import SQLiteState
from digest.mirror.gate import SyncGate
from digest.mirror.store import Completion
from digest.models import Window
from digest.state.base import SharedState
from tests.support.clock import Clock
from tests.support.redis_server import connect, free_port, sandbox
from tests.support.service import DAY, REPO, START, SYNCED, T0, CountingSync, until


@dataclass
class Env:
    clock: Clock
    states: tuple[SharedState, SharedState]  # two replicas' views of one shared state


@pytest.fixture(params=["sqlite", "redis"])
async def env(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Env]:
    """Two handles on one shared state of each kind, and the clock they follow."""
    clock = Clock(START)
    if request.param == "redis":
        async with sandbox() as box, connect(box.url) as other:
            yield Env(
                clock,
                (
                    RedisState(box.client, prefix=box.prefix, timeout=15.0),
                    RedisState(other, prefix=box.prefix, timeout=15.0),
                ),
            )
        return
    path = str(tmp_path / "state.db")
    first, second = SQLiteState(path, clock=clock), SQLiteState(path, clock=clock)
    yield Env(clock, (first, second))
    await first.close()
    await second.close()


def gate(env: Env, sync: CountingSync, replica: int = 0) -> SyncGate:
    return SyncGate(sync, env.states[replica], env.clock, poll=timedelta(milliseconds=10))


async def test_concurrent_ensures_sync_once(env: Env) -> None:
    """Many concurrent requests for one repository cause one sync."""
    release = asyncio.Event()
    sync = CountingSync(env.clock, before=release.wait)
    gated = gate(env, sync)
    tasks = [asyncio.create_task(gated.ensure(REPO, DAY)) for _ in range(10)]
    await until(lambda: len(sync.calls) == 1)
    release.set()
    results = await asyncio.gather(*tasks)
    assert len(sync.calls) == 1
    assert {r.synced_at for r in results} == {env.clock()}


async def test_recent_sync_is_reused_until_stale(env: Env) -> None:
    """A sync younger than 60 s is reused; an older one is repeated."""
    sync = CountingSync(env.clock)
    gated = gate(env, sync)
    first = await gated.ensure(REPO, DAY)
    env.clock.now += timedelta(seconds=59)
    again = await gated.ensure(REPO, DAY)
    assert len(sync.calls) == 1 and again.synced_at == first.synced_at
    assert again.notes == (SYNCED,)
    env.clock.now += timedelta(seconds=2)
    await gated.ensure(REPO, DAY)
    assert len(sync.calls) == 2


async def test_older_window_needs_its_own_sync(env: Env) -> None:
    """A fresh sync is reused only for windows starting within what it covered."""
    sync = CountingSync(env.clock)
    gated = gate(env, sync)
    await gated.ensure(REPO, DAY)
    later = Window(T0 + timedelta(hours=6), T0 + timedelta(days=1))
    await gated.ensure(REPO, later)
    assert len(sync.calls) == 1
    older = Window(T0 - timedelta(days=3), T0 - timedelta(days=2))
    await gated.ensure(REPO, older)
    await gated.ensure(REPO, DAY)
    assert [w for _, w in sync.calls] == [DAY, older]


async def test_searched_window_is_reused_only_within_itself(env: Env) -> None:
    """A sync that fetched only its own (old) window is not reused for the next day."""
    sync = CountingSync(env.clock, searched=True)
    gated = gate(env, sync)
    old = Window(T0 - timedelta(days=20), T0 - timedelta(days=19))
    await gated.ensure(REPO, old)
    await gated.ensure(REPO, Window(old.start + timedelta(hours=2), old.end))
    assert len(sync.calls) == 1
    following = Window(old.end, old.end + timedelta(days=1))
    await gated.ensure(REPO, following)
    assert [w for _, w in sync.calls] == [old, following]


async def test_replica_reuses_only_what_the_recorded_sync_covered(env: Env) -> None:
    """Another replica reads the recorded coverage: it reuses the window, not the next day."""
    searched = CountingSync(env.clock, searched=True)
    other = CountingSync(env.clock)
    old = Window(T0 - timedelta(days=20), T0 - timedelta(days=19))
    await gate(env, searched, 0).ensure(REPO, old)
    second = gate(env, other, 1)
    assert (await second.ensure(REPO, old)).notes == (SYNCED,)  # as the other replica said it
    await second.ensure(REPO, Window(old.end, old.end + timedelta(days=1)))
    assert (len(searched.calls), len(other.calls)) == (1, 1)


async def test_replica_reads_when_a_stopped_sync_completes(env: Env) -> None:
    """Another replica reusing a sync the limit stopped reads the same completion."""
    done = Completion(START + timedelta(hours=2), 75, 60)
    stopped = CountingSync(env.clock, completion=done)
    assert (await gate(env, stopped, 0).ensure(REPO, DAY)).completion == done
    other = CountingSync(env.clock)
    assert (await gate(env, other, 1).ensure(REPO, DAY)).completion == done
    assert (len(stopped.calls), len(other.calls)) == (1, 0)


async def test_replica_reads_what_a_renamed_repository_is_called_now(env: Env) -> None:
    """Another replica reusing the sync of a renamed repository reads its new name too: its
    report is built from the mirror under that name."""
    renamed = CountingSync(env.clock, renamed_to="vllm-project/vllm-next")
    assert (await gate(env, renamed, 0).ensure(REPO, DAY)).repo == "vllm-project/vllm-next"
    other = CountingSync(env.clock)
    assert (await gate(env, other, 1).ensure(REPO, DAY)).repo == "vllm-project/vllm-next"
    assert (len(renamed.calls), len(other.calls)) == (1, 0)


async def test_repositories_sync_independently(env: Env) -> None:
    """A sync of one repository is not reused for another."""
    sync = CountingSync(env.clock)
    gated = gate(env, sync)
    await gated.ensure(REPO, DAY)
    await gated.ensure("octo/other", DAY)
    assert [r for r, _ in sync.calls] == [REPO, "octo/other"]


async def test_replicas_share_one_sync(env: Env) -> None:
    """A replica asking while another syncs waits for that sync instead of making its own."""
    release = asyncio.Event()
    first_sync = CountingSync(env.clock, before=release.wait)
    second_sync = CountingSync(env.clock)
    first = asyncio.create_task(gate(env, first_sync, 0).ensure(REPO, DAY))
    await until(lambda: len(first_sync.calls) == 1)
    second = asyncio.create_task(gate(env, second_sync, 1).ensure(REPO, DAY))
    release.set()
    results = await asyncio.gather(first, second)
    assert (len(first_sync.calls), len(second_sync.calls)) == (1, 0)
    assert results[0].synced_at == results[1].synced_at


async def test_unreachable_state_still_syncs() -> None:
    """With Redis down the gate syncs directly, and still reuses its own recent sync."""
    clock = Clock(START)
    sync = CountingSync(clock)
    async with connect(f"redis://127.0.0.1:{free_port()}/0") as client:
        gated = SyncGate(sync, RedisState(client, retry_after=0.05), clock)
        assert (await gated.ensure(REPO, DAY)).synced_at == clock()
        await gated.ensure(REPO, DAY)
    assert len(sync.calls) == 1


async def test_ended_window_needs_a_sync_started_after_its_end(env: Env) -> None:
    """A window ending at 11:21 is not built from a sync begun at 11:20:55, but from a new one."""
    sync = CountingSync(env.clock)
    gated = gate(env, sync)
    end = env.clock.now + timedelta(seconds=5)
    await gated.ensure(REPO, Window(end - timedelta(days=1), end + timedelta(seconds=1)))
    env.clock.now = end + timedelta(seconds=1)
    ended = Window(end - timedelta(days=1), end)
    await gated.ensure(REPO, ended)
    assert len(sync.calls) == 2
    env.clock.now += timedelta(seconds=10)
    await gate(env, sync, replica=1).ensure(REPO, ended)
    assert len(sync.calls) == 2  # the sync begun after the end is reused, by any replica
