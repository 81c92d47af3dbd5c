"""What Slack says about the person behind a request: locale, time zone, workspace role.

One ``users.info`` call (with ``include_locale``) per request, made only when a command needs
it; a refusal or an unknown zone reads as "not known".
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.defaults import Caller
from bot.slack.post import slack_error
from digest.errors import BadWindow
from digest.windows import zone

log = logging.getLogger(__name__)

CONVERSATION_TYPES = "public_channel,private_channel,mpim,im"
MAX_CONVERSATION_PAGES = 20  # 20 pages of 200: more conversations than anyone is in


async def conversations_of(client: AsyncWebClient, user: str) -> set[str]:
    """The conversations ``user`` is a member of (that the bot can see: it is in them too),
    from ``users.conversations``; none when Slack refuses, so nothing is shown by mistake."""
    found: set[str] = set()
    cursor: str | None = None
    try:
        for _ in range(MAX_CONVERSATION_PAGES):
            page = await client.users_conversations(
                user=user, types=CONVERSATION_TYPES, exclude_archived=True, limit=200, cursor=cursor
            )
            found.update(str(c.get("id")) for c in page.get("channels") or [])
            cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                break
    except SlackApiError as exc:
        log.warning("slack.conversations_failed", extra={"error": slack_error(exc)})
        return set()
    return found


class Person:
    """One Slack user, looked up at most once."""

    def __init__(self, client: AsyncWebClient, user: str) -> None:
        self._client = client
        self._user = user
        self._info: Mapping[str, Any] | None = None

    async def info(self) -> Mapping[str, Any]:
        if self._info is None:
            try:
                answer = await self._client.users_info(user=self._user, include_locale=True)
                found = answer.get("user")
                self._info = found if isinstance(found, Mapping) else {}
            except SlackApiError as exc:
                log.warning("slack.user_unknown", extra={"error": slack_error(exc)})
                self._info = {}
        return self._info

    async def locale(self) -> str | None:
        value = (await self.info()).get("locale")
        return str(value) if value else None

    async def timezone(self) -> str | None:
        value = (await self.info()).get("tz")
        if not value:
            return None
        try:
            zone(str(value))
        except BadWindow:
            return None
        return str(value)

    async def is_workspace_manager(self) -> bool:
        info = await self.info()
        return bool(info.get("is_admin") or info.get("is_owner") or info.get("is_primary_owner"))


def slack_caller(client: AsyncWebClient, channel: str, user: str, team: str | None) -> Caller:
    """The :class:`Caller` of a Slack request in ``channel`` of workspace ``team``."""
    person = Person(client, user)
    return Caller(
        channel=channel,
        workspace=team or None,
        locale=person.locale,
        timezone=person.timezone,
        can_manage_workspace=person.is_workspace_manager,
        user=user or None,
    )
