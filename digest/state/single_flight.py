"""Single flight across tasks and processes: one producer per key, everyone else waits.

Within a process, concurrent calls with the same flight key share one task. Across processes,
the task takes a claim on a lock key in the shared state: the holder produces and publishes
the result (then releases the claim); the others poll for the published result until it
appears, the claim disappears (the holder failed or died and its claim expired: they take
over), or ``wait_timeout`` passes (they produce it themselves). When the shared state is
unavailable, the task produces directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Generic, TypeVar

from digest.errors import StateUnavailable
from digest.state.base import SharedState

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(slots=True)
class FlightStats:
    """What the calls of one :class:`SingleFlight` came to (for metrics and benchmarks)."""

    found: int = 0  # answered from a published result
    produced: int = 0  # produced under the lock
    waited: int = 0  # answered by another process's result after waiting
    direct: int = 0  # produced without the lock: state unavailable or wait timed out
    joined: int = 0  # calls that joined a flight already running in this process


class _Down(Exception):
    """The shared state failed during a flight."""


async def _guarded(call: Awaitable[T]) -> T:
    try:
        return await call
    except StateUnavailable as exc:
        raise _Down from exc


class SingleFlight(Generic[T]):
    """Runs ``produce`` once per key across tasks and processes sharing ``state``."""

    def __init__(
        self,
        state: SharedState,
        *,
        name: str,
        lock_ttl: timedelta = timedelta(seconds=30),
        wait_timeout: timedelta = timedelta(minutes=2),
        poll: timedelta = timedelta(milliseconds=50),
    ) -> None:
        self._state = state
        self._name = name
        self._lock_ttl = lock_ttl
        self._wait_timeout = wait_timeout.total_seconds()
        self._poll = poll.total_seconds()
        self._tasks: dict[str, asyncio.Task[T]] = {}
        self.stats = FlightStats()

    async def run(
        self,
        key: str,
        lock_key: str,
        lookup: Callable[[], Awaitable[T | None]],
        produce: Callable[[], Awaitable[T]],
        publish: Callable[[T], Awaitable[None]],
    ) -> T:
        """The published result for ``key``, or the one ``produce`` makes (once).

        ``lookup`` and ``publish`` use the shared state (their ``StateUnavailable`` is a
        degradation); whatever ``produce`` raises is passed to every caller waiting on it.
        Cancelling a caller does not cancel a flight others wait on.
        """
        task = self._tasks.get(key)
        if task is None:
            task = asyncio.create_task(self._fly(lock_key, lookup, produce, publish))
            self._tasks[key] = task
            task.add_done_callback(lambda done: self._forget(key, done))
        else:
            self.stats.joined += 1
        return await asyncio.shield(task)

    def _forget(self, key: str, task: asyncio.Task[T]) -> None:
        if self._tasks.get(key) is task:
            del self._tasks[key]
        if not task.cancelled():
            task.exception()  # retrieved here so an unawaited failure is never reported

    async def _fly(
        self,
        lock_key: str,
        lookup: Callable[[], Awaitable[T | None]],
        produce: Callable[[], Awaitable[T]],
        publish: Callable[[T], Awaitable[None]],
    ) -> T:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait_timeout
        try:
            found = await _guarded(lookup())
            if found is not None:
                self.stats.found += 1
                return found
            while True:
                token = await _guarded(self._state.claim(lock_key, self._lock_ttl))
                if token is not None:
                    return await self._produce_locked(lock_key, token, lookup, produce, publish)
                found = await self._wait(lock_key, lookup, deadline)
                if found is not None:
                    self.stats.waited += 1
                    return found
                if loop.time() >= deadline:
                    log.warning(
                        "flight.wait_timeout",
                        extra={
                            "flight": self._name,
                            "lock": lock_key,
                            "waited_seconds": self._wait_timeout,
                        },
                    )
                    break
        except _Down:
            pass
        self.stats.direct += 1
        return await produce()

    async def _wait(
        self, lock_key: str, lookup: Callable[[], Awaitable[T | None]], deadline: float
    ) -> T | None:
        """Poll until a result is published, the lock is free, or the deadline passes."""
        loop = asyncio.get_running_loop()
        while loop.time() < deadline:
            await asyncio.sleep(min(self._poll, max(0.0, deadline - loop.time())))
            found = await _guarded(lookup())
            if found is not None:
                return found
            if await _guarded(self._state.get(lock_key)) is None:
                return None
        return None

    async def _produce_locked(
        self,
        lock_key: str,
        token: str,
        lookup: Callable[[], Awaitable[T | None]],
        produce: Callable[[], Awaitable[T]],
        publish: Callable[[T], Awaitable[None]],
    ) -> T:
        heartbeat = asyncio.create_task(self._keep(lock_key, token))
        try:
            found = await _guarded(lookup())  # published between our lookup and our claim
            if found is not None:
                self.stats.found += 1
                return found
            result = await produce()
            self.stats.produced += 1
            with contextlib.suppress(StateUnavailable):
                await publish(result)
            return result
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
            with contextlib.suppress(StateUnavailable):
                await self._state.release(lock_key, token)

    async def _keep(self, lock_key: str, token: str) -> None:
        """Renew the claim while producing, so only a dead holder's claim expires."""
        period = self._lock_ttl.total_seconds() / 3
        while True:
            await asyncio.sleep(period)
            try:
                if not await self._state.renew(lock_key, token, self._lock_ttl):
                    log.warning("flight.lock_lost", extra={"flight": self._name, "lock": lock_key})
                    return
            except StateUnavailable:
                continue
