"""A scope's ``owner/*`` entry: the owner's repositories pushed to in the window, found through
GitHub's repository listing of the fake GitHub, capped, and listed again only past its TTL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import pytest

from digest.errors import NoActiveRepos, RepoRefused
from digest.models import Counts, Lang
from digest.render.markdown import render_markdown
from digest.scope import Scope
from tests.fakes.github import issue_row
from tests.support.scopes import T0, WINDOW, ScopeRig, request, scope_rig

ENGINE, KERNELS, LEGACY = "acme/engine", "acme/kernels", "acme/legacy"


def _at(hours: float) -> object:
    return T0 + timedelta(hours=hours)


@pytest.fixture
async def rig() -> AsyncIterator[ScopeRig]:
    """The scope rig, with an owner ``acme`` of three repositories: ``engine`` (two new issues,
    one merged PR) and ``kernels`` (one new PR, one closed issue) were pushed to in the window,
    ``legacy`` (an old issue) last a month before it."""
    async with scope_rig() as found:
        fake = found.fake
        engine = fake.add_repo(
            ENGINE,
            issues=[
                issue_row(ENGINE, 1, created=T0 + timedelta(hours=1), title="Crash on start"),
                issue_row(ENGINE, 2, created=T0 + timedelta(hours=2), title="Slow decode"),
                issue_row(
                    ENGINE, 3, created=T0 + timedelta(hours=3), merged=T0 + timedelta(hours=6)
                ),
            ],
        )
        kernels = fake.add_repo(
            KERNELS,
            issues=[
                issue_row(KERNELS, 1, created=T0 + timedelta(hours=4), pr=True, title="MoE"),
                issue_row(
                    KERNELS, 2, created=T0 - timedelta(days=3), closed=T0 + timedelta(hours=5)
                ),
            ],
        )
        legacy = fake.add_repo(
            LEGACY, issues=[issue_row(LEGACY, 1, created=T0 - timedelta(days=40))]
        )
        engine.pushed_at = T0 + timedelta(hours=7)
        kernels.pushed_at = T0 + timedelta(hours=5)
        legacy.pushed_at = T0 - timedelta(days=30)
        yield found


def _listings(rig: ScopeRig) -> list[str]:
    return [r.path for r in rig.fake.requests if r.path.endswith("/repos")]


async def test_an_owner_entry_reports_on_its_repositories_active_in_the_window(
    rig: ScopeRig,
) -> None:
    req = replace(request(), scope=Scope(("acme/*",), name="acme"), repo="acme/*")
    digest = await rig.digest(req)
    assert digest.repos == (ENGINE, KERNELS)  # the most recently pushed first; legacy left out
    assert dict(digest.repo_counts) == {
        ENGINE: Counts(
            new_issues=2, closed_issues=0, new_prs=1, merged_prs=1, closed_unmerged_prs=0
        ),
        KERNELS: Counts(
            new_issues=0, closed_issues=1, new_prs=1, merged_prs=0, closed_unmerged_prs=0
        ),
    }
    assert digest.counts == Counts(
        new_issues=2, closed_issues=1, new_prs=2, merged_prs=1, closed_unmerged_prs=0
    )
    assert not rig.requests(LEGACY)  # never synced
    assert not digest.notes  # nothing was cut off
    text = render_markdown(digest)
    assert "acme/engine: New issues 2 |" in text and "acme/kernels: New issues 0 |" in text
    assert "[acme/kernels#1 MoE](https://github.com/acme/kernels/pull/1)" in text
    # one page of the organisation's listing, sorted by push, newest first
    listed = [r for r in rig.fake.requests if r.path == "/orgs/acme/repos"]
    assert len(listed) == 1
    assert listed[0].query["sort"] == "pushed" and listed[0].query["direction"] == "desc"

    before = len(rig.fake.requests)
    again = await rig.digest(req)  # within the sync gate's minute: the cache
    assert again.repos == digest.repos and len(rig.fake.requests) == before
    rig.clock.advance(timedelta(minutes=3))  # past the gate, within the listing's TTL
    await rig.digest(req)
    made = rig.fake.requests[before:]
    assert not [r for r in made if r.path.endswith("/repos")]  # the listing is kept
    assert all(sum(r.path.startswith(f"/repos/{x}/") for r in made) <= 2 for x in (ENGINE, KERNELS))
    rig.clock.advance(timedelta(minutes=10))  # past the listing's TTL: listed again, once
    await rig.digest(req)
    assert _listings(rig) == ["/orgs/acme/repos", "/orgs/acme/repos"]


async def test_the_cap_keeps_the_most_recently_pushed_and_says_what_it_cut(
    rig: ScopeRig,
) -> None:
    scope = Scope(("acme/*",), name="acme", owner_cap=1)
    for lang, words in (
        (
            Lang.EN,
            "acme/*: 2 repositories were pushed to in the window; the cap of 1 keeps the most "
            "recently pushed: acme/engine.",
        ),
        ("zh", "acme/*：窗口内有推送的仓库有 2 个，按上限只收录最近推送的 1 个：acme/engine。"),
    ):
        digest = await rig.digest(replace(request(lang=Lang(lang)), scope=scope, repo="acme/*"))
        assert digest.repo == ENGINE  # one repository left: its own digest, and the note
        assert digest.counts.new_issues == 2 and not rig.requests(KERNELS)
        assert words in digest.notes
        assert words.replace("/*", "/\\*") in render_markdown(digest)  # Markdown's escape


async def test_a_named_repository_and_its_owner_entry_name_it_once(rig: ScopeRig) -> None:
    scope = Scope((KERNELS, "acme/*"), name="acme")
    digest = await rig.digest(replace(request(), scope=scope, repo=KERNELS))
    assert digest.repos == (KERNELS, ENGINE)


async def test_a_user_is_listed_through_its_own_endpoint(rig: ScopeRig) -> None:
    rig.fake.user_owners.add("acme")
    digest = await rig.digest(replace(request(), scope=Scope(("acme/*",)), repo="acme/*"))
    assert digest.repos == (ENGINE, KERNELS)
    assert _listings(rig) == ["/orgs/acme/repos", "/users/acme/repos"]  # 404, then the user's


async def test_an_unknown_owner_is_a_missing_repository(rig: ScopeRig) -> None:
    with pytest.raises(RepoRefused) as caught:
        await rig.digest(replace(request(), scope=Scope(("nobody/*",)), repo="nobody/*"))
    assert (caught.value.repo, caught.value.reason) == ("nobody/*", "missing")


async def test_an_owner_with_nothing_pushed_in_the_window_says_so(rig: ScopeRig) -> None:
    rig.clock.advance(timedelta(days=60))
    late = replace(
        WINDOW, start=WINDOW.start + timedelta(days=59), end=WINDOW.end + timedelta(days=59)
    )
    req = replace(request(), window=late, scope=Scope(("acme/*",)), repo="acme/*")
    with pytest.raises(NoActiveRepos, match=r"acme/\*: no repository pushed to in the window"):
        await rig.digest(req)
