"""A fake GitHub on 127.0.0.1 and a client pointed at it, with a recording sleep."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from digest.github.client import GitHubClient
from tests.fakes.github import FakeGitHub, RecordingSleep
from tests.support.clock import Clock
from tests.support.synthetic import DEFAULT_NOW


@pytest.fixture
def clock() -> Clock:
    """The shared clock of the fake and the client, at the synthetic data's ``now``."""
    return Clock(DEFAULT_NOW)


@pytest.fixture
def sleep(clock: Clock) -> RecordingSleep:
    """A sleep that records its delays and moves the clock instead of waiting."""
    return RecordingSleep(clock)


@pytest.fixture
async def fake(clock: Clock) -> AsyncIterator[FakeGitHub]:
    """A running fake GitHub REST server."""
    async with FakeGitHub(clock=clock) as gh:
        yield gh


@pytest.fixture
async def http(fake: FakeGitHub) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client whose base URL is the fake's."""
    async with httpx.AsyncClient(base_url=fake.url, timeout=5.0) as client:
        yield client


@pytest.fixture
def client(http: httpx.AsyncClient, sleep: RecordingSleep, clock: Clock) -> GitHubClient:
    """An anonymous client on the fake; jitter fixed at the middle of its range."""
    return GitHubClient(http, sleep=sleep, clock=clock, jitter=lambda: 0.5)
