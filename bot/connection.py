"""Whether a front end is connected to its platform, and for how long it has not been.

Slack's Socket Mode session and Discord's gateway report here as they come and go; the daily
poster waits on it before posting, and ``/healthz`` reads it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class Connection:
    """Up or down, with the moment it went down; down (since creation) until first up."""

    def __init__(self, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._down_since: float | None = monotonic()
        self._up = asyncio.Event()

    @property
    def is_up(self) -> bool:
        return self._down_since is None

    def up(self) -> None:
        self._down_since = None
        self._up.set()

    def down(self) -> None:
        if self._down_since is None:
            self._down_since = self._monotonic()
        self._up.clear()

    def down_for(self) -> float:
        """Seconds since the connection went down (or was created); 0 while it is up."""
        return 0.0 if self._down_since is None else self._monotonic() - self._down_since

    async def wait_up(self, within: float) -> bool:
        """Wait until the connection is up, at most ``within`` seconds; whether it is."""
        try:
            await asyncio.wait_for(self._up.wait(), within)
        except TimeoutError:
            return False
        return True
