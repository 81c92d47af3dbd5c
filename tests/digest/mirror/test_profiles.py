"""Profiles of the people a report names: fetched once from GitHub, then read from the
mirror until they age; never fetched when the budget is spent or unknown without a token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest

from digest.backends.sqlite.mirror import SQLiteStore
from digest.github.client import GitHubClient
from digest.mirror.profiles import Profiles
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.store_samples import T0


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    fake = FakeGitHub(clock=lambda: T0)
    await fake.start()
    fake.add_repo("vllm-project/vllm")
    fake.put_user("gshtras", "@AMD")
    fake.put_user("mgoin", "Red Hat")
    fake.put_user("quiet", None)
    try:
        yield fake
    finally:
        await fake.close()


def _user_requests(fake: FakeGitHub) -> list[str]:
    return [r.path for r in fake.requests if r.path.startswith("/users/")]


async def _profiles(
    fake: FakeGitHub, clock: Clock, store: SQLiteStore, token: str | None = "t"
) -> tuple[Profiles, httpx.AsyncClient]:
    http = httpx.AsyncClient(base_url=fake.url, timeout=5.0)
    client = GitHubClient(http, token=token, clock=clock)
    return Profiles(store, client, clock=clock, max_age=timedelta(days=30)), http


async def test_a_profile_is_fetched_once_then_read_from_the_mirror(github: FakeGitHub) -> None:
    """Two reports name the same people: one request each, then none until they age."""
    clock = Clock(T0)
    store = SQLiteStore(":memory:")
    profiles, http = await _profiles(github, clock, store)
    try:
        first = await profiles.companies(["gshtras", "mgoin", "quiet", "gshtras"])
        second = await profiles.companies(["mgoin", "gshtras"])
        assert first == {"gshtras": "@AMD", "mgoin": "Red Hat"}
        assert second == {"mgoin": "Red Hat", "gshtras": "@AMD"}
        assert _user_requests(github) == ["/users/gshtras", "/users/mgoin", "/users/quiet"]
        github.put_user("mgoin", "IBM")
        clock.advance(timedelta(days=31))
        assert await profiles.companies(["mgoin"]) == {"mgoin": "IBM"}
        assert _user_requests(github)[-1] == "/users/mgoin" and len(_user_requests(github)) == 4
    finally:
        await http.aclose()
        await store.close()


async def test_no_profile_is_fetched_when_the_budget_is_spent(github: FakeGitHub) -> None:
    """Within the reserve, the cached company (however old) or none is used, no request."""
    clock = Clock(T0)
    store = SQLiteStore(":memory:")
    profiles, http = await _profiles(github, clock, store)
    try:
        assert await profiles.companies(["gshtras"]) == {"gshtras": "@AMD"}
        github.leave(10)
        await profiles.companies(["mgoin"])  # the answer that says 9 are left
        sent = len(_user_requests(github))
        clock.advance(timedelta(days=40))
        assert await profiles.companies(["gshtras", "quiet"]) == {"gshtras": "@AMD"}
        assert len(_user_requests(github)) == sent
    finally:
        await http.aclose()
        await store.close()


async def test_without_a_token_nothing_is_fetched_before_github_reports_budget(
    github: FakeGitHub,
) -> None:
    """An anonymous client spends no request on profiles until it knows budget remains."""
    clock = Clock(T0)
    store = SQLiteStore(":memory:")
    profiles, http = await _profiles(github, clock, store, token=None)
    try:
        assert await profiles.companies(["gshtras"]) == {}
        assert _user_requests(github) == []
        client = GitHubClient(http, clock=clock)
        profiles = Profiles(store, client, clock=clock)
        await client.repository("vllm-project/vllm")  # 60 an hour, 59 left: above the reserve
        assert await profiles.companies(["gshtras"]) == {"gshtras": "@AMD"}
        assert _user_requests(github) == ["/users/gshtras"]
    finally:
        await http.aclose()
        await store.close()
