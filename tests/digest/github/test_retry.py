"""The retry decisions, as a table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from digest.github.retry import (
    Action,
    RetryPolicy,
    backoff,
    decide,
    retry_after_seconds,
)

NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
RESET_SOON = str(int((NOW + timedelta(seconds=20)).timestamp()))
RESET_LATER = str(int((NOW + timedelta(minutes=40)).timestamp()))
SECONDARY = "You have exceeded a secondary rate limit. Please wait a few minutes."
POLICY = RetryPolicy()


@pytest.mark.parametrize(
    ("status", "headers", "message", "action", "reason", "delay"),
    [
        (200, {}, "", Action.DONE, "", 0.0),
        (304, {}, "", Action.DONE, "", 0.0),
        (404, {}, "Not Found", Action.DONE, "", 0.0),
        (422, {}, "Validation Failed", Action.DONE, "", 0.0),
        (401, {}, "Bad credentials", Action.DONE, "", 0.0),
        (403, {"x-ratelimit-remaining": "12"}, "Resource not accessible", Action.DONE, "", 0.0),
        (500, {}, "", Action.RETRY, "server_error", 0.0),
        (502, {}, "", Action.RETRY, "server_error", 0.0),
        (503, {"retry-after": "5"}, "", Action.RETRY, "server_error", 0.0),
        (403, {"retry-after": "7"}, SECONDARY, Action.WAIT, "secondary_rate_limit", 7.0),
        (429, {"retry-after": "3"}, "", Action.WAIT, "secondary_rate_limit", 3.0),
        (403, {"retry-after": "600"}, SECONDARY, Action.RATE_LIMITED, "secondary_rate_limit", 0.0),
        (403, {"x-ratelimit-remaining": "5"}, SECONDARY, Action.WAIT, "secondary_rate_limit", 60.0),
        (429, {}, "", Action.WAIT, "secondary_rate_limit", 60.0),
        (
            403,
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": RESET_SOON},
            "API rate limit exceeded",
            Action.WAIT,
            "primary_rate_limit",
            21.0,
        ),
        (
            403,
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": RESET_LATER},
            "API rate limit exceeded",
            Action.RATE_LIMITED,
            "primary_rate_limit",
            0.0,
        ),
        (
            429,
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": RESET_LATER},
            "",
            Action.RATE_LIMITED,
            "primary_rate_limit",
            0.0,
        ),
        (403, {"x-ratelimit-remaining": "0"}, "", Action.RATE_LIMITED, "primary_rate_limit", 0.0),
    ],
)
def test_decision_table(
    status: int,
    headers: dict[str, str],
    message: str,
    action: Action,
    reason: str,
    delay: float,
) -> None:
    """Each kind of response gets the documented verdict and wait."""
    decision = decide(status, httpx.Headers(headers), message, now=NOW, policy=POLICY)
    assert (decision.action, decision.reason, decision.delay) == (action, reason, delay)


def test_primary_limit_reports_the_reset_time() -> None:
    """An exhausted primary limit carries GitHub's reset time."""
    headers = httpx.Headers({"x-ratelimit-remaining": "0", "x-ratelimit-reset": RESET_LATER})
    decision = decide(403, headers, "", now=NOW, policy=POLICY)
    assert decision.reset_at == datetime.fromtimestamp(int(RESET_LATER), UTC)


def test_long_retry_after_reports_when_to_come_back() -> None:
    """A Retry-After beyond the wait cap becomes a reset time, not a sleep."""
    decision = decide(403, httpx.Headers({"retry-after": "900"}), "", now=NOW, policy=POLICY)
    assert decision.reset_at == NOW + timedelta(seconds=900)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("30", 30.0),
        (" 0 ", 0.0),
        ("Wed, 11 Mar 2026 03:22:00 GMT", 60.0),
        ("Wed, 11 Mar 2026 03:20:00 GMT", 0.0),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_forms(value: str | None, seconds: float | None) -> None:
    """Retry-After is read as seconds or as an HTTP date."""
    assert retry_after_seconds(value, now=NOW) == seconds


@pytest.mark.parametrize(
    ("attempt", "jitter", "delay"),
    [
        (1, 0.0, 0.5),
        (1, 0.999, 0.9995),
        (2, 0.5, 1.5),
        (3, 0.5, 3.0),
        (5, 1.0, 16.0),
        (9, 0.0, 8.0),
    ],
)
def test_backoff_doubles_with_jitter_and_a_cap(attempt: int, jitter: float, delay: float) -> None:
    """Backoff doubles per attempt, keeps half fixed and half random, and stops at the cap."""
    assert backoff(attempt, POLICY, jitter) == pytest.approx(delay)
