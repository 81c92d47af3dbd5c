"""Who may change a Slack channel's subscriptions.

Slack's API does not expose channel managers, so a manager here is a workspace admin or owner,
or the channel's creator; in a direct message the user manages their own DM.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.post import slack_error

log = logging.getLogger(__name__)


async def is_manager(client: AsyncWebClient, channel: str, user: str) -> bool:
    """Whether ``user`` may change ``channel``'s subscriptions."""
    if channel.startswith("D"):
        return True
    try:
        info = await client.users_info(user=user)
        person = info.get("user") or {}
        if person.get("is_admin") or person.get("is_owner") or person.get("is_primary_owner"):
            return True
        conversation = await client.conversations_info(channel=channel)
        return bool((conversation.get("channel") or {}).get("creator") == user)
    except SlackApiError as exc:
        log.warning(
            "slack.manager_check_failed", extra={"channel": channel, "error": slack_error(exc)}
        )
        return False
