"""The reserve of the GitHub budget: interactive work stops spending below it, the rest not."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from digest.github.client import GitHubClient
from digest.github.reserve import BudgetReserved, interactive, is_interactive, reserved
from tests.fakes.github import FakeGitHub, RecordingSleep
from tests.support.clock import Clock

REPO = "vllm-project/vllm"


def _client(http: httpx.AsyncClient, sleep: RecordingSleep, clock: Clock) -> GitHubClient:
    return GitHubClient(http, token="ghp_test", sleep=sleep, clock=clock, reserve=0.3)


def test_the_reserve_is_a_share_of_the_limit() -> None:
    """Below 30 % of 5,000 (1,500) is reserved; at it, or without headers yet, is not."""
    assert reserved(5000, 1499, 0.3) and not reserved(5000, 1500, 0.3)
    assert not reserved(None, 10, 0.3) and not reserved(5000, None, 0.3)
    assert not reserved(5000, 0, 0.0)


async def test_below_the_reserve_interactive_requests_are_not_sent(
    fake: FakeGitHub, http: httpx.AsyncClient, sleep: RecordingSleep, clock: Clock
) -> None:
    """With 1,000 of 5,000 left, a scheduled request goes out; an interactive one is refused
    before it is sent, saying when the limit resets."""
    fake.add_repo(REPO)
    fake.leave(1000)
    client = _client(http, sleep, clock)
    await client.repository(REPO)  # the schedule's: spends, and learns the headers
    sent = len(fake.requests)
    with interactive(), pytest.raises(BudgetReserved) as raised:
        await client.repository(REPO)
    assert len(fake.requests) == sent
    assert raised.value.reset_at == (clock.now + timedelta(hours=1)).replace(microsecond=0)
    await client.repository(REPO)  # outside interactive work: still served
    assert len(fake.requests) == sent + 1 and not is_interactive()


async def test_above_the_reserve_interactive_requests_go_out(
    fake: FakeGitHub, http: httpx.AsyncClient, sleep: RecordingSleep, clock: Clock
) -> None:
    """With 2,000 of 5,000 left (40 %), interactive work spends as usual."""
    fake.add_repo(REPO)
    fake.leave(2000)
    client = _client(http, sleep, clock)
    with interactive():
        await client.repository(REPO)
        await client.repository(REPO)
    assert len(fake.requests) == 2
