"""The Slack Web API client of the bot: slack_sdk's retry handlers on every call.

A 429 is retried after its ``Retry-After`` (``AsyncRateLimitErrorRetryHandler``) and a dropped
connection is retried once more (``AsyncConnectionErrorRetryHandler``), for every Web API method
the bot calls (posting, ephemeral messages, DMs, ``auth.test``, user and channel look-ups).
"""

from __future__ import annotations

from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

RATE_LIMIT_RETRIES = 4
CONNECTION_RETRIES = 2


def web_client(
    token: str,
    base_url: str,
    *,
    rate_limit_retries: int = RATE_LIMIT_RETRIES,
    connection_retries: int = CONNECTION_RETRIES,
) -> AsyncWebClient:
    """An ``AsyncWebClient`` for ``base_url`` that retries rate limits and dropped connections."""
    return AsyncWebClient(
        token=token,
        base_url=base_url,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=connection_retries),
            AsyncRateLimitErrorRetryHandler(max_retry_count=rate_limit_retries),
        ],
    )
