"""How long the background sync waits before its next round, from GitHub's rate-limit headers.

The interval is a floor: when the requests one round costs, times the rounds left before the
limit resets, would not fit in what ``X-RateLimit-Remaining`` says is left (less a share kept
for people's commands), the wait stretches; when not even one round fits, it lasts until the
reset. GitHub documents the free 304 for authorized requests only, so without a token every
304 a round makes is counted as paid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from digest.github.client import GitHubClient, RateStatus

KEEP_SHARE = 0.2  # of the limit, left for commands and questions
_AFTER_RESET = timedelta(seconds=1)


def next_wait(
    status: RateStatus | None, *, now: datetime, interval: timedelta, per_round: int
) -> timedelta:
    """The wait before the next round, given the last headers and what a round costs."""
    if status is None or status.remaining is None or status.reset_at is None or per_round <= 0:
        return interval
    keep = math.ceil((status.limit or 0) * KEEP_SHARE)
    spare = status.remaining - keep
    until_reset = max(timedelta(0), status.reset_at - now)
    if spare < per_round:
        return max(interval, until_reset + _AFTER_RESET)
    rounds = spare // per_round
    return max(interval, until_reset / rounds)


@dataclass(slots=True)
class Pacer:
    """Measures what each round of syncs costs on ``client`` and paces the next one."""

    client: GitHubClient
    _made: int = 0
    _not_modified: int = 0

    def start(self) -> None:
        """Mark the start of a round."""
        self._made, self._not_modified = self.client.requests_made, self.client.not_modified

    def paid(self) -> int:
        """Requests the round since :meth:`start` spent of the limit (304s too, without a
        token)."""
        made = self.client.requests_made - self._made
        free = 0 if not self.client.authenticated else self.client.not_modified - self._not_modified
        return made - free

    def wait(self, interval: timedelta, now: datetime) -> timedelta:
        """The wait before the next round."""
        return next_wait(
            self.client.rate.get("core"), now=now, interval=interval, per_round=self.paid()
        )
