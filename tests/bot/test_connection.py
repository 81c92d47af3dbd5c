"""A front end's connection state: up, down since when, and waiting for it."""

from __future__ import annotations

import asyncio

from bot.connection import Connection


class Ticks:
    now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_down_time_counts_from_the_first_drop_until_up_again() -> None:
    """Down from creation until up; a drop counts from its first report; up resets it."""
    ticks = Ticks()
    link = Connection(monotonic=ticks)
    ticks.now = 103.0
    assert not link.is_up and link.down_for() == 3.0
    link.up()
    assert link.is_up and link.down_for() == 0.0
    link.down()
    ticks.now = 110.0
    link.down()  # reported again: still down since 103
    assert link.down_for() == 7.0


async def test_waiting_ends_when_the_connection_comes_up() -> None:
    """A waiter returns as soon as the connection is up, or false after its time limit."""
    link = Connection()
    assert await link.wait_up(0.01) is False
    waiter = asyncio.ensure_future(link.wait_up(5.0))
    await asyncio.sleep(0)
    link.up()
    assert await waiter is True
