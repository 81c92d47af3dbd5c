"""The background mirror sync: an hourly reconciliation of each followed repository, lapses of
repositories that stopped answering, and pruning."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from bot.process.refresh import MirrorSync
from digest.backends.sqlite.mirror import SQLiteStore
from digest.mirror.access import GuardedSync
from digest.mirror.sync import Syncer
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.following import github_access, repo_requests
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


async def test_a_repository_missing_three_syncs_in_a_row_is_left_until_it_answers() -> None:
    """A configured repository GitHub answers 404 for, and a subscribed one the access finds
    missing (asking GitHub each round), are synced three rounds, then left (no request); the
    subscribed one is followed again once GitHub shows it and it is admitted again (a
    re-subscribe)."""
    clock = Clock(START)
    names = [REPO, "cfg/gone", "sub/gone"]

    async def repos() -> Iterable[str]:
        return names

    store = SQLiteStore(":memory:")
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        gh.add_repo(REPO)
        syncer = Syncer(rig.github, store, clock=clock)
        guarded = GuardedSync(syncer, rig.access, trusted=[REPO, "cfg/gone"])
        refresh = MirrorSync(guarded, repos, clock=clock, lapses=rig.access)

        def asked(repo: str) -> int:
            return sum(r.path.startswith(f"/repos/{repo}") for r in gh.requests)

        for _ in range(3):
            await refresh.sync_once()
            clock.advance(timedelta(minutes=10))
        assert await rig.access.lapsed("cfg/gone") and await rig.access.lapsed("sub/gone")
        assert repo_requests(gh, "sub/gone") == 3  # each miss is GitHub's answer, none kept
        before = {name: asked(name) for name in names}
        await refresh.sync_once()
        assert asked("cfg/gone") == before["cfg/gone"] and asked("sub/gone") == before["sub/gone"]
        assert asked(REPO) > before[REPO] and refresh.counters["sync_lapsed"] == 2

        gh.add_repo("sub/gone")
        clock.advance(timedelta(hours=1))  # the kept "missing" answer expires
        await rig.access.admit("sub/gone")  # what a re-subscribe does
        await refresh.sync_once()
        assert not await rig.access.lapsed("sub/gone") and await rig.access.lapsed("cfg/gone")
        assert any(r.path == "/repos/sub/gone/issues" for r in gh.requests)
    await store.close()


async def test_pruning_runs_every_six_hours_with_the_followed_repositories() -> None:
    """The refresh prunes at its first round and then once every six hours, keeping what it
    follows."""
    clock = Clock(START)
    pruned: list[list[str]] = []

    async def repos() -> Iterable[str]:
        return [REPO]

    async def prune(followed: Iterable[str]) -> list[str]:
        pruned.append(list(followed))
        return ["o/old"]

    refresh = MirrorSync(CountingSync(clock), repos, clock=clock, prune=prune)
    await refresh.prune_due()
    clock.advance(timedelta(hours=5))
    await refresh.prune_due()
    assert pruned == [[REPO]]
    clock.advance(timedelta(hours=1))
    await refresh.prune_due()
    assert pruned == [[REPO], [REPO]] and refresh.counters["mirrors_pruned"] == 2
