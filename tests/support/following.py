"""What may be followed, for tests: a repository access over the fake GitHub and a SQLite
state, and a core whose chat commands it admits."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime

import httpx

from bot.commands.following import Caps, Following
from bot.commands.runner import ReportCore
from digest.backends.sqlite.state import SQLiteState
from digest.github.allow_list import AllowList
from digest.github.client import GitHubClient
from digest.github.retry import RetryPolicy
from digest.mirror.access import RepoAccess
from digest.schedule.subscriptions import StateSubscriptions
from tests.fakes.github import FakeGitHub


@dataclass(slots=True)
class Access:
    """The access under test and what it stands on."""

    github: GitHubClient
    state: SQLiteState
    access: RepoAccess
    subscriptions: StateSubscriptions

    def following(self, caps: Caps | None = None, trusted: tuple[str, ...] = ()) -> Following:
        every = self.subscriptions.all_subscriptions
        return Following(self.access, every, caps or Caps(), trusted=trusted)

    def admit_in(self, core: ReportCore, caps: Caps | None = None) -> ReportCore:
        """``core``, its chat commands checked by this access (the configuration's own
        repositories trusted) within ``caps``."""
        core.allow = self.access.allow
        own = (core.config.default_repo, *core.config.repos)
        core.following = self.following(caps, trusted=own)
        return core


@asynccontextmanager
async def github_access(
    gh: FakeGitHub,
    clock: Callable[[], datetime],
    *,
    allow: AllowList | None = None,
    lapse_after: int = 3,
) -> AsyncIterator[Access]:
    """A repository access over ``gh`` (no retries) and a fresh in-memory state."""
    async with httpx.AsyncClient(base_url=gh.url) as http:
        client = GitHubClient(http, clock=clock, policy=RetryPolicy(attempts=1))
        state = SQLiteState(":memory:", clock=clock)
        access = RepoAccess(
            client, state, allow or AllowList(), clock=clock, lapse_after=lapse_after
        )
        try:
            yield Access(client, state, access, StateSubscriptions(state))
        finally:
            await state.close()


def repo_requests(gh: FakeGitHub, repo: str | None = None) -> int:
    """The requests ``gh`` saw for a repository itself (``GET /repos/{o}/{r}``)."""
    return sum(
        1
        for r in gh.requests
        if r.path.count("/") == 3
        and r.path.startswith("/repos/")
        and (repo is None or r.path.lower() == f"/repos/{repo.lower()}")
    )
