"""``subscribe``, ``unsubscribe`` and ``subscriptions`` in Slack, for channel managers only.

Slack's API does not expose channel managers, so a manager here is a workspace admin or owner,
or the channel's creator; in a direct message the user manages their own DM.
"""

from __future__ import annotations

import logging
from typing import Final

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.dispatch import SubscriptionCommand, SubscriptionCommands
from bot.slack.poster import slack_error
from bot.subscriptions import Subscriptions
from config.settings import AppConfig

log = logging.getLogger(__name__)

PLATFORM: Final = "slack"


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


class SlackSubscriptions:
    """Applies subscription commands of Slack channels, outside a bolt app."""

    def __init__(
        self,
        store: Subscriptions,
        client: AsyncWebClient,
        config: AppConfig,
        *,
        default_lang: str = "en",
    ) -> None:
        self._commands = SubscriptionCommands(
            store, config, platform=PLATFORM, default_lang=default_lang
        )
        self._client = client

    async def handle(self, command: SubscriptionCommand, *, channel: str, user: str) -> str:
        """The reply to ``command`` in ``channel`` from ``user``."""
        reply = await self._commands.reply(
            command, channel=channel, can_manage=lambda: is_manager(self._client, channel, user)
        )
        return reply.text
