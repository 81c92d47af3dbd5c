"""Single flight: one producer per key, every caller gets its result, failures are not kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from digest.backends.sqlite.state import SQLiteState
from digest.errors import StateUnavailable
from digest.state.single_flight import SingleFlight

FAST = {"poll": timedelta(milliseconds=5), "wait_timeout": timedelta(seconds=2)}


class Published:
    """A result store the flights publish to and look up in, with a count of productions."""

    def __init__(self) -> None:
        self.value: str | None = None
        self.produced = 0
        self.gate = asyncio.Event()

    async def lookup(self) -> str | None:
        return self.value

    async def publish(self, value: str) -> None:
        self.value = value

    async def produce(self) -> str:
        self.produced += 1
        await self.gate.wait()
        return f"digest #{self.produced}"


@pytest.fixture
async def state() -> AsyncIterator[SQLiteState]:
    opened = SQLiteState(":memory:", clock=lambda: datetime.now(UTC))
    yield opened
    await opened.close()


async def test_concurrent_callers_share_one_production(state: SQLiteState) -> None:
    """Ten callers of one key wait on one production and all get its result."""
    flight: SingleFlight[str] = SingleFlight(state, name="test", **FAST)
    box = Published()
    calls = [
        asyncio.create_task(flight.run("k", "lock:k", box.lookup, box.produce, box.publish))
        for _ in range(10)
    ]
    await asyncio.sleep(0.05)
    box.gate.set()
    assert await asyncio.gather(*calls) == ["digest #1"] * 10
    assert box.produced == 1 and flight.stats.produced == 1 and flight.stats.joined == 9


async def test_a_published_result_is_found_without_producing(state: SQLiteState) -> None:
    """A result already published answers at once."""
    flight: SingleFlight[str] = SingleFlight(state, name="test", **FAST)
    box = Published()
    box.value = "cached"
    assert await flight.run("k", "lock:k", box.lookup, box.produce, box.publish) == "cached"
    assert box.produced == 0 and flight.stats.found == 1


async def test_a_failure_reaches_every_caller_and_is_not_kept(state: SQLiteState) -> None:
    """Every waiting caller sees the producer's error; the next call produces afresh."""
    flight: SingleFlight[str] = SingleFlight(state, name="test", **FAST)
    attempts = 0

    async def failing() -> str:
        nonlocal attempts
        attempts += 1
        await asyncio.sleep(0.02)
        raise RuntimeError("GitHub said no")

    box = Published()
    calls = [flight.run("k", "lock:k", box.lookup, failing, box.publish) for _ in range(3)]
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert [str(r) for r in results] == ["GitHub said no"] * 3 and attempts == 1
    box.gate.set()
    assert await flight.run("k", "lock:k", box.lookup, box.produce, box.publish) == "digest #1"


async def test_a_cancelled_caller_leaves_the_flight_to_the_others(state: SQLiteState) -> None:
    """Cancelling one caller does not cancel the production another caller waits on."""
    flight: SingleFlight[str] = SingleFlight(state, name="test", **FAST)
    box = Published()
    first = asyncio.create_task(flight.run("k", "lock:k", box.lookup, box.produce, box.publish))
    second = asyncio.create_task(flight.run("k", "lock:k", box.lookup, box.produce, box.publish))
    await asyncio.sleep(0.02)
    first.cancel()
    box.gate.set()
    assert await second == "digest #1"
    assert first.cancelled()


async def test_another_holder_is_waited_for(state: SQLiteState) -> None:
    """While another process holds the lock, the caller waits for the result it publishes."""
    flight: SingleFlight[str] = SingleFlight(state, name="test", **FAST)
    box = Published()
    token = await state.claim("lock:k", timedelta(seconds=30))
    assert token is not None
    call = asyncio.create_task(flight.run("k", "lock:k", box.lookup, box.produce, box.publish))
    await asyncio.sleep(0.05)
    box.value = "from the other process"
    assert await call == "from the other process"
    assert box.produced == 0 and flight.stats.waited == 1


async def test_a_released_lock_is_taken_over(state: SQLiteState) -> None:
    """When the holder gives up without publishing, a waiting caller produces itself."""
    flight: SingleFlight[str] = SingleFlight(state, name="test", **FAST)
    box = Published()
    box.gate.set()
    token = await state.claim("lock:k", timedelta(seconds=30))
    assert token is not None
    call = asyncio.create_task(flight.run("k", "lock:k", box.lookup, box.produce, box.publish))
    await asyncio.sleep(0.05)
    await state.release("lock:k", token)
    assert await call == "digest #1" and flight.stats.produced == 1


async def test_shared_state_down_means_producing_directly(state: SQLiteState) -> None:
    """When the shared state fails, the caller still gets a result: it produces directly."""
    flight: SingleFlight[str] = SingleFlight(state, name="test", **FAST)
    box = Published()
    box.gate.set()

    async def down() -> str | None:
        raise StateUnavailable("redis is down")

    assert await flight.run("k", "lock:k", down, box.produce, box.publish) == "digest #1"
    assert flight.stats.direct == 1
