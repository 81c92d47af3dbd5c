"""What the chat front ends need of the thread journal: open a thread, record its parts, close it.

The journal itself is :class:`digest.schedule.command_threads.CommandThreads`, built by the
composition root; a front end without one posts untracked (:data:`UNTRACKED`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol

from digest.builder import DigestRequest
from digest.errors import ThreadTaken

log = logging.getLogger(__name__)


class ThreadTracker(Protocol):
    """One thread being posted: each part is recorded as the platform accepts it."""

    async def sent(self, index: int, message_id: str) -> None:
        """Part ``index`` (0 is the parent) is out as ``message_id``; raises
        :class:`~digest.errors.ThreadTaken` when another replica completes the thread."""
        ...

    async def done(self) -> None:
        """The thread is complete."""
        ...

    async def failed(self) -> None:
        """The thread broke off and the requester was told: nobody completes it."""
        ...

    async def stopped(self) -> None:
        """The poster stops (the process is stopping): the next replica completes the thread."""
        ...


class ThreadJournal(Protocol):
    """Opens the threads commands start, so a replica can complete one whose poster died."""

    async def open(
        self,
        *,
        platform: str,
        channel: str,
        user: str,
        request: DigestRequest,
        thread: str | None = None,
    ) -> ThreadTracker: ...


class _Untracked:
    async def sent(self, index: int, message_id: str) -> None:
        return None

    async def done(self) -> None:
        return None

    async def failed(self) -> None:
        return None

    async def stopped(self) -> None:
        return None


UNTRACKED: ThreadTracker = _Untracked()
"""The tracker of a thread no journal keeps."""


async def open_thread(
    journal: ThreadJournal | None,
    *,
    platform: str,
    channel: str,
    user: str,
    request: DigestRequest,
    thread: str | None = None,
) -> ThreadTracker:
    """``journal``'s tracker for a new thread, or :data:`UNTRACKED` without a journal."""
    if journal is None:
        return UNTRACKED
    return await journal.open(
        platform=platform, channel=channel, user=user, request=request, thread=thread
    )


@asynccontextmanager
async def posting(tracker: ThreadTracker) -> AsyncIterator[None]:
    """The block that posts ``tracker``'s thread: done when it ends, failed when it raises (the
    error goes on), handed over when it is cancelled. A thread another replica took over ends
    the block quietly, skipping the rest of it."""
    try:
        yield
    except ThreadTaken:
        log.warning("threads.taken_over")
        return
    except asyncio.CancelledError:
        await asyncio.shield(tracker.stopped())
        raise
    except Exception:
        await tracker.failed()
        raise
    await tracker.done()
