"""``subscribe``, ``unsubscribe`` and ``subscriptions`` in Slack, for channel managers only."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Final, Protocol

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import messages
from bot.grammar import ListSubscriptionsCommand, SubscribeCommand, UnsubscribeCommand
from bot.slack.poster import slack_error
from config.settings import AppConfig, SubscriptionConfig

log = logging.getLogger(__name__)

PLATFORM: Final = "slack"


class Subscriptions(Protocol):
    """Daily-post subscriptions of chat channels (the same store the scheduler reads)."""

    async def add(self, subscription: SubscriptionConfig) -> None: ...

    async def remove(
        self, platform: str, channel: str, repo: str | None = None
    ) -> Sequence[str]: ...

    async def list(self, platform: str, channel: str) -> Sequence[SubscriptionConfig]: ...


class SlackSubscriptions:
    """Applies subscription commands of a Slack channel.

    Slack's API does not expose channel managers, so a manager here is a workspace admin or
    owner, or the channel's creator; in a direct message the user manages their own DM.
    """

    def __init__(self, store: Subscriptions, client: AsyncWebClient, config: AppConfig) -> None:
        self._store = store
        self._client = client
        self._config = config

    async def handle(
        self,
        command: SubscribeCommand | UnsubscribeCommand | ListSubscriptionsCommand,
        *,
        channel: str,
        user: str,
    ) -> str:
        """The reply to ``command`` in ``channel`` from ``user``."""
        if isinstance(command, ListSubscriptionsCommand):
            subs = await self._store.list(PLATFORM, channel)
            if not subs:
                return messages.NO_SUBSCRIPTIONS
            return messages.subscriptions_list(
                [
                    (s.repo or self._config.default_repo, s.time or "", s.timezone or "", s.lang)
                    for s in subs
                ]
            )
        if not await self.is_manager(channel, user):
            return messages.MANAGERS_ONLY
        repo = command.options.repo or self._config.default_repo
        if isinstance(command, UnsubscribeCommand):
            removed = await self._store.remove(PLATFORM, channel, command.options.repo)
            if not removed:
                return messages.NO_SUBSCRIPTIONS
            return messages.unsubscribed(", ".join(r or repo for r in removed))
        repo_conf = self._config.repo(repo)
        sub = SubscriptionConfig(
            platform=PLATFORM,
            channel=channel,
            repo=repo,
            time=command.time or repo_conf.day_start,
            timezone=command.timezone or repo_conf.timezone,
            lang=command.options.lang or "en",  # type: ignore[arg-type]
            topics=list(command.topics) if command.topics is not None else None,
            writer=command.writer or "auto",  # type: ignore[arg-type]
        )
        await self._store.add(sub)
        log.info("slack.subscribed", extra={"channel": channel, "repo": repo})
        return messages.subscribed(repo, sub.time or "", sub.timezone or "", sub.lang)

    async def is_manager(self, channel: str, user: str) -> bool:
        """Whether ``user`` may change ``channel``'s subscriptions."""
        if channel.startswith("D"):
            return True
        try:
            info = await self._client.users_info(user=user)
            person = info.get("user") or {}
            if person.get("is_admin") or person.get("is_owner") or person.get("is_primary_owner"):
                return True
            conversation = await self._client.conversations_info(channel=channel)
            return bool((conversation.get("channel") or {}).get("creator") == user)
        except SlackApiError as exc:
            log.warning(
                "slack.manager_check_failed", extra={"channel": channel, "error": slack_error(exc)}
            )
            return False
