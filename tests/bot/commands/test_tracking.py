"""The front ends' view of the thread journal: a tracker from the journal, or none without one."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from bot.commands.tracking import UNTRACKED, open_thread, posting
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.errors import ThreadTaken
from digest.models import Window
from digest.schedule.command_threads import CommandThreads
from digest.schedule.ledger import StateLedger
from tests.support.clock import Clock

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
REQUEST = DigestRequest("vllm-project/vllm", Window(NOW.replace(day=1), NOW), "en", "template", ())


async def test_without_a_journal_a_thread_goes_out_untracked() -> None:
    tracker = await open_thread(None, platform="slack", channel="C1", user="U1", request=REQUEST)
    assert tracker is UNTRACKED
    await tracker.sent(0, "1.0")
    await tracker.done()


async def test_with_a_journal_the_thread_is_opened_there() -> None:
    clock = Clock(NOW)
    state = SQLiteState(":memory:", clock=clock)
    try:
        ledger = StateLedger(state)
        journal = CommandThreads(ledger, clock=clock)
        tracker = await open_thread(
            journal, platform="slack", channel="C1", user="U1", request=REQUEST, thread="9.1"
        )
        (doc,) = (await ledger.open_threads()).values()
        assert (doc["channel"], doc["thread"], doc["user"]) == ("C1", "9.1", "U1")
        await tracker.done()
        assert await ledger.open_threads() == {}
    finally:
        await state.close()


class Recorder:
    """A tracker that writes down how its thread ended."""

    def __init__(self) -> None:
        self.ended: list[str] = []

    async def sent(self, index: int, message_id: str) -> None:
        return None

    async def done(self) -> None:
        self.ended.append("done")

    async def failed(self) -> None:
        self.ended.append("failed")

    async def stopped(self) -> None:
        self.ended.append("stopped")


async def test_posting_ends_the_thread_as_the_block_ends() -> None:
    """Done after the block; failed when it raises (the error goes on); handed over when it is
    cancelled; a thread taken over ends the block quietly, the rest of it skipped."""
    tracker, after = Recorder(), []
    async with posting(tracker):
        after.append("posted")
    assert tracker.ended == ["done"] and after == ["posted"]

    tracker = Recorder()
    with pytest.raises(ConnectionError):
        async with posting(tracker):
            raise ConnectionError("refused")
    assert tracker.ended == ["failed"]

    tracker = Recorder()
    with pytest.raises(asyncio.CancelledError):
        async with posting(tracker):
            raise asyncio.CancelledError
    assert tracker.ended == ["stopped"]

    tracker, after = Recorder(), []
    async with posting(tracker):
        raise ThreadTaken("cmd:1")
        after.append("posted")
    assert tracker.ended == [] and after == []
