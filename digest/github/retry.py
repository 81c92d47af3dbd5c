"""What to do after a GitHub response or a transport failure: small pure decisions.

Retried: 5xx responses, timeouts, network and protocol errors (``TRANSIENT_ERRORS``), with
exponential backoff and jitter. Waited for: secondary rate limits (``Retry-After``, or the
documented message) and a primary limit that resets within ``max_wait``. Everything else is
final: a primary limit that resets later raises at once, other 4xx are never retried.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from enum import StrEnum

import httpx

# Transport failures worth another attempt; anything else (bad URL, ...) is a bug, not weather.
TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)

# GitHub: "wait for at least one minute" after a secondary limit that names no wait.
SECONDARY_WAIT = 60.0


class Action(StrEnum):
    """The verdict on one response."""

    DONE = "done"  # hand the response to the caller: success, 304 or a final error
    RETRY = "retry"  # transient failure: back off, then try again
    WAIT = "wait"  # rate limited briefly: wait ``delay`` seconds, then try again
    RATE_LIMITED = "rate_limited"  # exhausted until ``reset_at``: give up now


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Caps on retrying one request."""

    attempts: int = 5  # total attempts, the first one included
    base_delay: float = 1.0  # backoff before the second attempt (doubles each time)
    max_delay: float = 16.0  # cap on one backoff
    max_wait: float = 90.0  # longest rate-limit wait honoured (search resets each minute)
    max_total: float = 150.0  # cap on the seconds slept for one request


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    reason: str = ""
    delay: float = 0.0
    reset_at: datetime | None = None


def retry_after_seconds(value: str | None, *, now: datetime) -> float | None:
    """A ``Retry-After`` header (seconds or an HTTP date) as seconds from ``now``."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - now).total_seconds())


def reset_time(headers: Mapping[str, str]) -> datetime | None:
    """``X-RateLimit-Reset`` (epoch seconds) as an aware datetime."""
    value = headers.get("x-ratelimit-reset", "")
    return datetime.fromtimestamp(int(value), UTC) if value.isdigit() else None


def decide(
    status: int,
    headers: Mapping[str, str],
    message: str,
    *,
    now: datetime,
    policy: RetryPolicy,
) -> Decision:
    """What a response with ``status``, ``headers`` and body ``message`` calls for.

    ``headers`` must look names up case-insensitively (``httpx.Headers`` does).
    """
    if status >= 500:
        return Decision(Action.RETRY, "server_error")
    if status not in (403, 429):
        return Decision(Action.DONE)
    retry_after = retry_after_seconds(headers.get("retry-after"), now=now)
    if retry_after is not None:
        return _wait(retry_after, "secondary_rate_limit", now=now, policy=policy)
    if headers.get("x-ratelimit-remaining") == "0":
        reset_at = reset_time(headers)
        if reset_at is None:
            return Decision(Action.RATE_LIMITED, "primary_rate_limit")
        # One second past the reset, as GitHub's reset is rounded down.
        wait = max(0.0, (reset_at - now).total_seconds()) + 1.0
        return _wait(wait, "primary_rate_limit", now=now, policy=policy, reset_at=reset_at)
    if status == 429 or "secondary rate limit" in message.lower():
        return _wait(SECONDARY_WAIT, "secondary_rate_limit", now=now, policy=policy)
    return Decision(Action.DONE)


def _wait(
    seconds: float,
    reason: str,
    *,
    now: datetime,
    policy: RetryPolicy,
    reset_at: datetime | None = None,
) -> Decision:
    reset = reset_at or now + timedelta(seconds=seconds)
    if seconds > policy.max_wait:
        return Decision(Action.RATE_LIMITED, reason, reset_at=reset)
    return Decision(Action.WAIT, reason, delay=seconds, reset_at=reset)


def backoff(attempt: int, policy: RetryPolicy, jitter: float) -> float:
    """The pause after failed ``attempt`` (1-based): doubling, capped, with ``jitter`` in [0, 1).

    Half the delay is fixed and half is random ("equal jitter"), so retries from many clients
    spread out while each still waits at least half the nominal delay.
    """
    nominal = min(policy.max_delay, policy.base_delay * 2.0 ** (attempt - 1))
    return nominal / 2 + nominal / 2 * jitter
