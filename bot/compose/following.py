"""What may be followed, from the settings: the caps on subscriptions and the access that checks
repositories on GitHub (the allow-list is :func:`bot.commands.following.allow_list`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from bot.commands.following import Caps, allow_list
from config.settings import AppConfig, Settings
from digest.github.client import GitHubClient
from digest.mirror.access import RepoAccess
from digest.state.base import SharedState

_NEVER = timedelta(days=36500)


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
