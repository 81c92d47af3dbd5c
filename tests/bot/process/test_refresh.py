"""The background mirror sync: an hourly reconciliation of each followed repository."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from bot.process.refresh import MirrorSync
from tests.support.clock import Clock
from tests.support.service import REPO, START, CountingSync


async def test_reconciliation_runs_once_an_hour_per_repository() -> None:
    """Deleted and transferred items are looked for hourly, not on every round."""
    clock = Clock(START)
    checked: list[str] = []

    async def repos() -> Iterable[str]:
        return [REPO, "vllm-project/guidellm"]

    async def reconcile(repo: str) -> list[int]:
        checked.append(repo)
        return [7] if repo == REPO else []

    refresh = MirrorSync(CountingSync(clock), repos, clock=clock, reconcile=reconcile)
    await refresh.reconcile_due()
    clock.now += timedelta(minutes=10)
    await refresh.reconcile_due()
    assert checked == [REPO, "vllm-project/guidellm"]
    clock.now += timedelta(minutes=51)
    await refresh.reconcile_due()
    assert len(checked) == 4 and refresh.counters["items_removed"] == 2
