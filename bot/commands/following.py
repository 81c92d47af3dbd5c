"""What chat may follow: the allow-list (``VLLM_REPORT_ALLOWED_REPOS`` over the configuration's
``allowed_repos``), a repository the access admits, within the caps on subscriptions per
channel, per workspace (Discord server) and in total; and the words of each refusal."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from config.settings import AppConfig, Settings
from digest import i18n
from digest.errors import ConfigError, RepoRefused
from digest.github.allow_list import AllowList
from digest.mirror.access import RepoAccess
from digest.models import Lang
from digest.schedule.subscription import Subscription
from digest.schedule.subscriptions import SubscriptionStore

Directory = Callable[[], Awaitable[Sequence[Subscription]]]


def trusted(config: AppConfig) -> list[str]:
    """The configuration's own repositories (the default and those of ``repos:``), which are
    always allowed and never checked."""
    return [config.default_repo, *config.repos]


def allow_list(settings: Settings, config: AppConfig) -> AllowList:
    """The allow-list; when there is one, the configuration's own repositories are on it."""
    raw = settings.allowed_repos
    patterns = re.split(r"[,\s]+", raw) if raw is not None else list(config.allowed_repos)
    try:
        found = AllowList.of(patterns)
    except ValueError as exc:
        raise ConfigError(f"VLLM_REPORT_ALLOWED_REPOS: {exc}") from exc
    if not found.restricted:
        return found
    return AllowList.of([*found.patterns, *trusted(config)])


@dataclass(frozen=True, slots=True)
class Caps:
    """The most subscriptions a channel, a workspace (Discord server) and the bot may hold."""

    per_channel: int = 10
    per_workspace: int = 50
    total: int = 1000


@dataclass(frozen=True, slots=True)
class CapReached:
    """A subscription one too many: the ``scope`` whose cap it meets, and that cap."""

    scope: str  # "channel" | "workspace" | "total"
    limit: int

    def text(self, lang: Lang, platform: str) -> str:
        where = i18n.t(f"follow.workspace.{platform}", lang)
        return i18n.t(f"follow.cap.{self.scope}", lang, limit=self.limit, workspace=where)


def refusal(error: RepoRefused, *, subscribing: bool = False) -> str:
    """The words of a refused repository, in the refusal's language; ``subscribing`` adds
    that nothing was stored."""
    allowed = error.allowed or "-"
    text = i18n.t(f"follow.{error.reason}", error.lang, repo=error.repo, allowed=allowed)
    if subscribing:
        text += ("" if error.lang == Lang.ZH else " ") + i18n.t("follow.not_stored", error.lang)
    return text


class Following:
    """Admits the repositories chat names and holds the caps, over ``directory`` (every stored
    subscription); the ``trusted`` repositories (the configuration's) pass unchecked."""

    def __init__(
        self,
        access: RepoAccess,
        directory: Directory,
        caps: Caps = Caps(),
        *,
        trusted: Iterable[str] = (),
    ) -> None:
        self.access = access
        self._directory = directory
        self.caps = caps
        self._trusted = frozenset(name.lower() for name in trusted)

    async def admit(self, repo: str) -> None:
        """Refuse ``repo`` when it is off the allow-list, missing on GitHub, or private and
        not listed (one request, kept)."""
        if repo.lower() in self._trusted:
            self.access.check_allowed(repo)
            return
        await self.access.admit(repo)

    async def cap_reached(self, made: Subscription) -> CapReached | None:
        """The cap ``made`` would exceed, if any; replacing a subscription never does."""
        every = await self._directory()
        if any(s.id == made.id for s in every):
            return None
        mine = [s for s in every if s.platform == made.platform]
        if sum(s.channel == made.channel for s in mine) >= self.caps.per_channel:
            return CapReached("channel", self.caps.per_channel)
        if made.workspace is not None:
            held = sum(s.workspace == made.workspace for s in mine)
            if held >= self.caps.per_workspace:
                return CapReached("workspace", self.caps.per_workspace)
        if len(every) >= self.caps.total:
            return CapReached("total", self.caps.total)
        return None

    async def lapsed(self, repo: str) -> bool:
        """Whether ``repo`` stopped answering and is not followed any more."""
        return await self.access.lapsed(repo)


class Lapsed(Protocol):
    """Whether a repository stopped answering (``RepoAccess``)."""

    async def lapsed(self, repo: str) -> bool: ...


class FollowedSubscriptions:
    """The subscriptions the scheduler posts: those of ``store`` whose repository has not
    lapsed (a lapsed one's subscriptions stay stored, and ``subscriptions`` says so)."""

    def __init__(self, store: SubscriptionStore, lapses: Lapsed) -> None:
        self._store = store
        self._lapses = lapses

    async def all_subscriptions(self) -> list[Subscription]:
        found = await self._store.all_subscriptions()
        repos = {s.repo.lower(): s.repo for s in found}  # each repository asked about once
        gone = {key for key, name in repos.items() if await self._lapses.lapsed(name)}
        return [s for s in found if s.repo.lower() not in gone]

    async def channel_subscriptions(self, platform: str, channel: str) -> list[Subscription]:
        return await self._store.channel_subscriptions(platform, channel)

    async def put_subscription(self, subscription: Subscription) -> None:
        await self._store.put_subscription(subscription)

    async def delete_subscription(self, platform: str, channel: str, repo: str) -> bool:
        return await self._store.delete_subscription(platform, channel, repo)
