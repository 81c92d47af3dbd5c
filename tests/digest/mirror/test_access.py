"""The repository access: one request tells whether a repository exists and is private, kept
in the shared state; lapses of repositories that stopped answering; when each was asked for."""

from __future__ import annotations

from datetime import timedelta

import pytest

from digest.errors import RepoRefused
from digest.github.allow_list import AllowList
from digest.mirror.access import GuardedSync
from digest.models import Window
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.following import github_access, repo_requests
from tests.support.service import REPO, START, CountingSync

WINDOW = Window(START - timedelta(days=1), START, "UTC", "today", ends_now=True)


async def test_one_request_answers_many_checks_of_one_repository() -> None:
    """Twenty checks of a missing and of a present repository cost GitHub one request each."""
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        gh.add_repo(REPO)
        for _ in range(20):
            with pytest.raises(RepoRefused) as refused:
                await rig.access.admit("nobody/nothing")
            assert refused.value.reason == "missing"
            await rig.access.admit(REPO)
        assert repo_requests(gh, "nobody/nothing") == 1 and repo_requests(gh, REPO) == 1
        clock.advance(timedelta(hours=1, seconds=1))  # a missing one is asked again hourly
        with pytest.raises(RepoRefused):
            await rig.access.admit("nobody/nothing")
        await rig.access.admit(REPO)
        assert repo_requests(gh, "nobody/nothing") == 2 and repo_requests(gh, REPO) == 1


async def test_a_private_repository_is_refused_unless_listed() -> None:
    """GitHub's ``private`` flag refuses a repository; the allow-list's pattern lets it in."""
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh:
        gh.add_repo("acme/secret", private=True)
        async with github_access(gh, clock) as rig:
            with pytest.raises(RepoRefused) as refused:
                await rig.access.admit("acme/secret")
            assert refused.value.reason == "private"
        async with github_access(gh, clock, allow=AllowList.of(["acme/*"])) as rig:
            await rig.access.admit("acme/secret")


async def test_a_repository_off_the_list_is_refused_without_a_request() -> None:
    """With an allow-list, another repository is refused at once, naming the list."""
    clock = Clock(START)
    async with (
        FakeGitHub(clock=clock) as gh,
        github_access(gh, clock, allow=AllowList.of(["vllm-project/*"])) as rig,
    ):
        gh.add_repo("other/repo")
        with pytest.raises(RepoRefused) as refused:
            await rig.access.admit("other/repo")
        assert (refused.value.reason, refused.value.allowed) == ("not_allowed", "vllm-project/*")
        assert gh.requests == []


async def test_an_owner_entry_is_checked_against_the_list_only() -> None:
    """A scope's ``owner/*`` is admitted without a request (its listing tells whether GitHub
    has the owner), and refused at once when the allow-list leaves the owner out."""
    clock = Clock(START)
    allow = AllowList.of(["acme/*"])
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock, allow=allow) as rig:
        await rig.access.admit("acme/*")
        with pytest.raises(RepoRefused) as refused:
            await rig.access.admit("other/*")
        assert refused.value.reason == "not_allowed"
        assert gh.requests == []


async def test_three_misses_in_a_row_lapse_and_an_answer_recovers() -> None:
    """Three NotFound syncs in a row lapse a repository; one that GitHub shows again (any
    admission) is followed again, and a success between misses starts the count anew."""
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        access = rig.access
        await access.missed(REPO)
        await access.missed(REPO)
        await access.answered(REPO)
        await access.missed(REPO)
        await access.missed(REPO)
        assert not await access.lapsed(REPO)
        assert await access.missed(REPO) == 3 and await access.lapsed(REPO)
        gh.add_repo(REPO)
        await access.admit(REPO)
        assert not await access.lapsed(REPO) and await access.misses(REPO) == 0


async def test_asked_for_is_remembered_for_its_period_with_one_write_an_hour() -> None:
    """A repository asked for is recent until ``asked_for`` passes after the last write, and
    asking again within the hour writes nothing."""
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        access = rig.access
        assert not await access.asked_recently(REPO)
        await access.asked(REPO)
        clock.advance(timedelta(minutes=59))
        await access.asked(REPO)  # within the hour: the first write stands
        clock.advance(access.asked_for - timedelta(minutes=58))
        assert not await access.asked_recently(REPO)
        await access.asked(REPO)
        assert await access.asked_recently(REPO.upper())


async def test_the_guarded_sync_never_syncs_a_refused_repository() -> None:
    """A missing or private repository raises before the mirror is synced (and is not recorded
    as asked for); a trusted one (the configuration's) is synced without asking GitHub."""
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        gh.add_repo("acme/secret", private=True)
        inner = CountingSync(clock)
        guarded = GuardedSync(inner, rig.access, trusted=[REPO])
        for name, reason in (("nobody/nothing", "missing"), ("acme/secret", "private")):
            with pytest.raises(RepoRefused) as refused:
                await guarded.ensure(name, WINDOW)
            assert refused.value.reason == reason
        assert inner.calls == []
        await guarded.ensure(REPO, WINDOW)
        assert [repo for repo, _ in inner.calls] == [REPO] and repo_requests(gh, REPO) == 0
        assert await rig.access.asked_recently(REPO)
        assert not await rig.access.asked_recently("nobody/nothing")  # refused: not recorded
