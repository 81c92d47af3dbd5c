"""The one clock tests move by hand: ``clock()`` is ``clock.now``; it never moves by itself."""

from __future__ import annotations

from datetime import datetime, timedelta


class Clock:
    """A clock that tests move by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta | float) -> None:
        """Move on by ``delta`` (seconds when a number)."""
        self.now += delta if isinstance(delta, timedelta) else timedelta(seconds=delta)

    def set(self, moment: datetime) -> None:
        """Move to ``moment``; a clock never runs backwards."""
        self.now = max(self.now, moment)
