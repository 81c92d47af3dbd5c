"""Background work started after an acknowledgement, tracked so a stop can wait for it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Jobs:
    """A set of running tasks; ``drain`` waits for them, ``idle`` waits without a deadline."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        self._idle.clear()
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not self._tasks:
            self._idle.set()
        if not task.cancelled() and task.exception() is not None:
            log.error(
                "slack.job_crashed", exc_info=task.exception(), extra={"job": task.get_name()}
            )

    def __len__(self) -> int:
        return len(self._tasks)

    async def idle(self) -> None:
        """Return once no job is running."""
        await self._idle.wait()

    async def drain(self, grace_s: float) -> None:
        """Let running jobs finish for up to ``grace_s`` seconds, then cancel the rest."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=grace_s)
        for task in pending:
            task.cancel()
        if pending:
            log.warning("slack.jobs_cancelled", extra={"count": len(pending)})
            await asyncio.wait(pending)
