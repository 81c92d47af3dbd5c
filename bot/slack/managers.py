"""Who may change a Slack channel's subscriptions.

Slack's API does not expose channel managers, so a manager here is a workspace admin or owner,
or the channel's creator; in a direct message the user manages their own DM. Each of them must
belong to the bot's own workspace (``team_id`` against ``auth.test``): in a Slack Connect
channel an admin of another organisation is an admin there, not here, and passes no check.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.post import slack_error

log = logging.getLogger(__name__)


async def is_manager(client: AsyncWebClient, channel: str, user: str) -> bool:
    """Whether ``user`` may change ``channel``'s subscriptions."""
    try:
        info = await client.users_info(user=user)
        person = info.get("user") or {}
        home = (await client.auth_test()).get("team_id")
        if not home or person.get("team_id") != home:
            log.info("slack.manager_other_team", extra={"channel": channel})
            return False
        if channel.startswith("D"):
            return True
        if person.get("is_admin") or person.get("is_owner") or person.get("is_primary_owner"):
            return True
        conversation = await client.conversations_info(channel=channel)
        return bool((conversation.get("channel") or {}).get("creator") == user)
    except SlackApiError as exc:
        log.warning(
            "slack.manager_check_failed", extra={"channel": channel, "error": slack_error(exc)}
        )
        return False
