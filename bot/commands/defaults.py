"""Defaults per channel and per workspace (Slack) or guild (Discord), and who asked.

A command's own options win; then the channel's defaults, then the workspace's; then what the
platform knows of the person asking (their locale: ``zh-*`` reads Chinese; their time zone on
Slack); then the configuration (``default_lang``, the repository's time zone and topics).
Defaults live in the shared state, so every replica sees the same, and survive restarts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Literal

from bot.commands.grammar import AskCommand, DigestCommand
from digest.models import Lang
from digest.state.base import SharedState

log = logging.getLogger(__name__)

Scope = Literal["channel", "workspace"]
_KEEP = timedelta(days=3650)  # defaults outlive any deployment


@dataclass(frozen=True, slots=True)
class Defaults:
    """The defaults of one channel or workspace; ``None`` means "not set here"."""

    lang: Lang | None = None
    timezone: str | None = None
    repo: str | None = None
    topics: tuple[str, ...] | None = None

    @property
    def empty(self) -> bool:
        return self == Defaults()

    def over(self, other: Defaults) -> Defaults:
        """These defaults, with what is unset here taken from ``other``."""
        return Defaults(
            self.lang or other.lang,
            self.timezone or other.timezone,
            self.repo or other.repo,
            self.topics if self.topics is not None else other.topics,
        )

    def to_json(self) -> str:
        topics = list(self.topics) if self.topics is not None else None
        doc = {"lang": self.lang, "timezone": self.timezone, "repo": self.repo, "topics": topics}
        return json.dumps(doc, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Defaults:
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise ValueError("stored defaults must be a JSON object")
        topics = doc.get("topics")
        lang = doc.get("lang")
        return cls(
            lang=Lang.parse(lang) if isinstance(lang, str) else None,
            timezone=str(doc["timezone"]) if doc.get("timezone") else None,
            repo=str(doc["repo"]) if doc.get("repo") else None,
            topics=tuple(str(t) for t in topics) if isinstance(topics, list) else None,
        )


class DefaultsStore:
    """Channel and workspace defaults kept in the shared state."""

    def __init__(self, state: SharedState) -> None:
        self._state = state

    @staticmethod
    def _key(platform: str, scope: Scope, ident: str) -> str:
        return f"defaults:{platform}:{scope}:{ident}"

    async def get(self, platform: str, scope: Scope, ident: str | None) -> Defaults:
        """The stored defaults; nothing stored (or unreadable) is no defaults."""
        if not ident:
            return Defaults()
        raw = await self._state.get(self._key(platform, scope, ident))
        if raw is None:
            return Defaults()
        try:
            return Defaults.from_json(raw)
        except (ValueError, TypeError) as exc:
            log.warning(
                "settings.unreadable",
                extra={"platform": platform, "scope": scope, "error": str(exc)},
            )
            return Defaults()

    async def put(self, platform: str, scope: Scope, ident: str, defaults: Defaults) -> None:
        await self._state.set(self._key(platform, scope, ident), defaults.to_json(), _KEEP)


async def _unknown() -> str | None:
    return None


async def _refused() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Caller:
    """Where a command came from and what the platform can tell about who sent it.

    ``locale`` and ``timezone`` are read only when a command needs them (Slack asks
    ``users.info``); ``can_manage_workspace`` says whether the caller may change the
    workspace's (guild's) defaults.
    """

    channel: str
    workspace: str | None = None
    locale: Callable[[], Awaitable[str | None]] = _unknown
    timezone: Callable[[], Awaitable[str | None]] = _unknown
    can_manage_workspace: Callable[[], Awaitable[bool]] = _refused
    fallback_locale: str | None = None  # Discord's guild_locale
    user: str | None = None  # who asked, for their rate limits


def locale_lang(locale: str | None) -> Lang | None:
    """The report language of a platform locale: ``zh-CN``, ``zh-TW``, ``zh_CN`` read Chinese."""
    if not locale:
        return None
    return Lang.parse(locale.replace("_", "-").split("-", 1)[0])


@dataclass(frozen=True, slots=True)
class Resolved:
    """The defaults that apply to one command, and where the time zone came from."""

    defaults: Defaults
    zone_from: str | None = None  # "channel" | "workspace" | "user"
    channel: Defaults = field(default_factory=Defaults)
    workspace: Defaults = field(default_factory=Defaults)


class Resolver:
    """Fills a command's unset options from the channel, the workspace and the caller."""

    def __init__(self, store: DefaultsStore | None, platform: str, default_lang: Lang) -> None:
        self.store = store
        self._platform = platform
        self._default_lang = default_lang

    async def scopes(self, caller: Caller) -> tuple[Defaults, Defaults]:
        """The channel's and the workspace's stored defaults."""
        if self.store is None:
            return Defaults(), Defaults()
        channel = await self.store.get(self._platform, "channel", caller.channel)
        workspace = await self.store.get(self._platform, "workspace", caller.workspace)
        return channel, workspace

    async def resolve(self, caller: Caller, *, want_zone: bool = False) -> Resolved:
        """The defaults for ``caller``: channel over workspace, then the caller's locale (and
        time zone when ``want_zone``), then ``default_lang``."""
        channel, workspace = await self.scopes(caller)
        merged = channel.over(workspace)
        zone_from = "channel" if channel.timezone else "workspace" if workspace.timezone else None
        lang = merged.lang
        if lang is None:
            lang = locale_lang(await caller.locale()) or locale_lang(caller.fallback_locale)
        if want_zone and merged.timezone is None:
            user_zone = await caller.timezone()
            if user_zone:
                merged, zone_from = replace(merged, timezone=user_zone), "user"
        return Resolved(
            replace(merged, lang=lang or self._default_lang), zone_from, channel, workspace
        )

    async def ask(self, command: AskCommand, caller: Caller) -> AskCommand:
        """``command`` with the channel's (else the workspace's) repository and language; a
        question without them keeps the language it is written in."""
        opts = command.options
        if opts.lang and opts.repo:
            return command
        channel, workspace = await self.scopes(caller)
        found = channel.over(workspace)
        options = replace(opts, repo=opts.repo or found.repo, lang=opts.lang or found.lang)
        return replace(command, options=options)

    async def digest(self, command: DigestCommand, caller: Caller) -> DigestCommand:
        """``command`` with its language, repository and topics filled in."""
        opts = command.options
        if opts.lang and opts.repo and command.topics is not None:
            return command
        found = (await self.resolve(caller)).defaults
        options = replace(opts, repo=opts.repo or found.repo, lang=opts.lang or found.lang)
        topics = command.topics if command.topics is not None else found.topics
        return replace(command, options=options, topics=topics)
