"""What may be followed, from the settings: the allow-list (``VLLM_REPORT_ALLOWED_REPOS`` over
the configuration's ``allowed_repos``), the caps on subscriptions and the access that checks
repositories on GitHub."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.commands.following import Caps
from config.settings import AppConfig, Settings
from digest.errors import ConfigError
from digest.github.allow_list import AllowList
from digest.github.client import GitHubClient
from digest.mirror.access import RepoAccess
from digest.state.base import SharedState

_NEVER = timedelta(days=36500)


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


def caps(settings: Settings) -> Caps:
    return Caps(
        per_channel=settings.max_subscriptions_per_channel,
        per_workspace=settings.max_subscriptions_per_workspace,
        total=settings.max_subscriptions,
    )


def repo_access(
    settings: Settings,
    config: AppConfig,
    github: GitHubClient,
    state: SharedState,
    clock: Callable[[], datetime],
) -> RepoAccess:
    days = settings.prune_after_days
    return RepoAccess(
        github,
        state,
        allow_list(settings, config),
        clock=clock,
        lapse_after=settings.lapse_after_syncs,
        asked_for=timedelta(days=days) if days else _NEVER,
    )
