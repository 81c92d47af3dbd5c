"""A report over a scope: two repositories that share item numbers, in one digest, with
filters; built against the fake GitHub and read in every format."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import pytest

from bot.discord.render import render_discord
from bot.slack.render import render_slack
from digest.builder import DigestRequest
from digest.codec import decode_digest, encode_digest
from digest.models import Digest, ItemKey, ItemRef, Lang, iter_spans
from digest.render.json import dumps, to_json
from digest.render.markdown import render_markdown
from digest.scope import Filters, Scope
from tests.support.scopes import (
    BUMPS,
    COUNTS,
    FILTERED,
    FILTERED_TOTAL,
    SGLANG,
    TOTAL,
    VLLM,
    ScopeRig,
    request,
    scope_item,
    scope_rig,
)


@pytest.fixture
async def rig() -> AsyncIterator[ScopeRig]:
    async with scope_rig() as found:
        yield found


def _refs(digest: Digest, section_id: str) -> list[ItemRef]:
    section = digest.section(section_id)
    assert section is not None, section_id
    return [s for s in iter_spans(section.blocks) if isinstance(s, ItemRef)]


# -- the noun --------------------------------------------------------------------------------


def test_filters_leave_out_labels_authors_bots_and_titles() -> None:
    """Labels in any case, author globs where ``[`` is itself, bots, title patterns."""
    bump = scope_item(VLLM, 1, labels=("Dependencies",))
    bot = scope_item(VLLM, 2, author="renovate[bot]")
    app = scope_item(VLLM, 3, author="github-actions", author_is_bot=True)
    title = scope_item(VLLM, 4, title="Bump torch from 2.8 to 2.9")
    plain = scope_item(VLLM, 5, author="bob")
    assert not Filters(exclude_labels=("dependencies",)).admits(bump)
    assert not Filters(exclude_authors=("*[bot]",)).admits(bot)
    assert Filters(exclude_authors=("*[bot]",)).admits(scope_item(VLLM, 6, author="botanist"))
    assert Filters(exclude_authors=("*[bot]",)).admits(app)  # a login, not the account type
    assert not Filters(exclude_bots=True).admits(app)
    assert not Filters(exclude_titles=("^bump ",)).admits(title)
    assert all(Filters(exclude_titles=("^bump ",)).admits(i) for i in (bump, bot, plain))
    only_rocm = Filters(include_labels=("rocm",))
    assert only_rocm.admits(scope_item(VLLM, 7, labels=("ROCm",))) and not only_rocm.admits(plain)
    with pytest.raises(ValueError, match="not a regular expression"):
        Filters(exclude_titles=("(",))


def test_a_scope_names_each_repository_once_and_one_repository_is_plain() -> None:
    assert Scope.one(VLLM).plain and not Scope.one(VLLM).several
    assert Scope((VLLM, SGLANG)).several
    with pytest.raises(ValueError, match="twice"):
        Scope((VLLM, VLLM.upper()))
    with pytest.raises(ValueError, match="at least one"):
        Scope(())


def test_one_repository_keeps_its_request_key() -> None:
    """A one-element scope without filters is the repository's request, cache key and all;
    several repositories or filters are another digest."""
    plain = request((VLLM,))
    assert plain.scope is None
    assert replace(plain, scope=Scope.one(VLLM)).key == plain.key
    keys = {
        plain.key,
        request().key,
        request(filters=BUMPS).key,
        request((VLLM,), filters=BUMPS).key,
    }
    assert len(keys) == 4


def test_item_keys_order_by_repository_then_number() -> None:
    assert sorted([ItemKey(VLLM, 1), ItemKey(SGLANG, 2), ItemKey(SGLANG, 1)]) == [
        ItemKey(SGLANG, 1),
        ItemKey(SGLANG, 2),
        ItemKey(VLLM, 1),
    ]
    assert str(ItemKey(VLLM, 7)) == "vllm-project/vllm#7"


# -- the digest over two repositories -------------------------------------------------------


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
async def test_two_repositories_have_their_counts_and_the_totals(rig: ScopeRig, lang: Lang) -> None:
    digest = await rig.digest(request(lang=lang))
    assert digest.repos == (VLLM, SGLANG)
    assert dict(digest.repo_counts) == COUNTS
    assert digest.counts == TOTAL
    text = render_markdown(digest)
    label = {Lang.EN: ("New issues", "Total: "), Lang.ZH: ("新 Issue", "合计：")}[lang]
    assert f"{VLLM}{': ' if lang is Lang.EN else '：'}{label[0]} 1 |" in text
    assert f"{SGLANG}{': ' if lang is Lang.EN else '：'}{label[0]} 2 |" in text
    assert f"{label[1]}{label[0]} 3 |" in text


async def test_every_appendix_item_links_to_its_own_repository(rig: ScopeRig) -> None:
    """#1, #2 and #3 exist in both repositories: each appears once per repository, named
    ``owner/name#N`` and linked to its own repository's page."""
    digest = await rig.digest(request())
    refs = _refs(digest, "appendix")
    assert refs and all(ref.url.startswith(f"https://github.com/{ref.repo}/") for ref in refs)
    listed = {(ref.repo, ref.number) for ref in refs}
    for number in (1, 2, 3):
        assert {(VLLM, number), (SGLANG, number)} <= listed
    text = render_markdown(digest)
    appendix = text[text.index("## 📋") :]
    assert "[vllm-project/vllm#1 \\[ROCm\\] MI300X crash" in appendix
    assert "(https://github.com/vllm-project/vllm/issues/1)" in appendix
    assert "[sgl-project/sglang#1 \\[AMD\\] ROCm build" in appendix
    assert "(https://github.com/sgl-project/sglang/issues/1)" in appendix
    assert "**vllm-project/vllm (2)**" in appendix and "**sgl-project/sglang (2)**" in appendix
    assert len(re.findall(r"\]\(https://github\.com/[^)]+/(?:issues|pull)/\d+\)", appendix)) == len(
        refs
    )


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
async def test_the_focus_topic_cites_both_repositories(rig: ScopeRig, lang: Lang) -> None:
    digest = await rig.digest(request(lang=lang))
    cited = {(ref.repo, ref.number) for ref in _refs(digest, "topic:rocm")}
    assert {(VLLM, 1), (VLLM, 2), (SGLANG, 1)} <= cited
    hot = {(ref.repo, ref.number) for ref in _refs(digest, "hot")}
    assert {(VLLM, 1), (SGLANG, 1)} <= hot  # ranked across the scope, each with its repository


async def test_json_names_each_items_repository(rig: ScopeRig) -> None:
    digest = await rig.digest(request())
    data = json.loads(dumps(digest))
    assert data["repos"] == [VLLM, SGLANG]
    assert data["repo_counts"] == {repo: c.as_dict() for repo, c in COUNTS.items()}
    assert data["counts"] == TOTAL.as_dict()
    new_issues = [(i["repo"], i["number"]) for i in data["lists"]["new_issues"]]
    assert new_issues == [(SGLANG, 1), (SGLANG, 6), (VLLM, 1)]
    topic = next(s for s in data["sections"] if s["id"] == "topic:rocm")
    spans = [s for b in topic["blocks"] for s in b.get("spans", [])]
    spans += [s for b in topic["blocks"] for entry in b.get("items", []) for s in entry]
    assert {(s["repo"], s["number"]) for s in spans if s["type"] == "item"} >= {
        (VLLM, 1),
        (SGLANG, 1),
    }
    assert {f"{VLLM}#1", f"{SGLANG}#1"} <= set(topic["cited"])  # the same number, twice
    assert len(topic["cited"]) == len(set(topic["cited"])) >= len(set(topic["cites"]))
    assert decode_digest(encode_digest(digest)) == digest


async def test_slack_and_discord_link_each_item_to_its_repository(rig: ScopeRig) -> None:
    digest = await rig.digest(request(lang=Lang.ZH))
    slack = json.dumps([m for m in render_slack(digest).messages], ensure_ascii=False)
    assert "<https://github.com/sgl-project/sglang/issues/1|sgl-project/sglang#1 [AMD]" in slack
    assert "<https://github.com/vllm-project/vllm/issues/1|vllm-project/vllm#1 [ROCm]" in slack
    assert "合计：新 Issue 3" in slack and "sgl-project/sglang：新 Issue 2" in slack
    discord = json.dumps([m.to_dict() for m in render_discord(digest).messages], ensure_ascii=False)
    assert "[sgl-project/sglang#1 " in discord
    assert "(<https://github.com/sgl-project/sglang/issues/1>)" in discord
    assert "[vllm-project/vllm#1" in discord
    assert "合计：新 Issue 3" in discord


# -- filters ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
async def test_filters_leave_every_section_and_count(rig: ScopeRig, lang: Lang) -> None:
    """Without the bots' dependency bumps: the counts after the filters, each with its figure
    before them, and no section names a bump or its author."""
    digest = await rig.digest(request(lang=lang, filters=BUMPS))
    assert dict(digest.repo_counts) == FILTERED
    assert digest.counts == FILTERED_TOTAL
    assert digest.unfiltered == TOTAL
    for section in digest.sections:
        numbers = {(ref.repo, ref.number) for ref in _refs(digest, section.id)}
        assert not numbers & {(VLLM, 3), (SGLANG, 3)}, section.id
    text = render_markdown(digest)
    assert "dependabot" not in text and "renovate" not in text and "Bump torch" not in text
    if lang is Lang.EN:
        assert "Total after filters: New issues 3 (3 before filters) |" in text
        assert "New PRs 2 (4 before filters) | Merged PRs 1 (2 before filters)" in text
    else:
        assert "合计（过滤后）：新 Issue 3（过滤前 3） |" in text
        assert "新 PR 2（过滤前 4） | 合并 PR 1（过滤前 2）" in text
    assert to_json(digest)["unfiltered_counts"] == TOTAL.as_dict()


async def test_filters_on_one_repository(rig: ScopeRig) -> None:
    """One repository with filters: its items keep their plain ``#N`` and the header says
    after filters."""
    digest = await rig.digest(request((VLLM,), filters=BUMPS))
    assert digest.counts == FILTERED[VLLM] and digest.unfiltered == COUNTS[VLLM]
    assert all(ref.repo == "" for ref in _refs(digest, "appendix"))
    text = render_markdown(digest)
    assert "After filters: New issues 1 (1 before filters) | Closed issues 1 (1 before" in text
    assert "[#3 " not in text and "[#2 \\[Kernel\\]" in text


async def test_authors_left_out_leave_the_discussions() -> None:
    """Comments of a left-out author are no heat: without them #1 has too few to be hot."""
    async with scope_rig() as rig:
        plain = await rig.digest(request((SGLANG,)))
        assert [r.number for r in _refs(plain, "hot")][:1] == [1]
        quiet = await rig.digest(
            request((SGLANG,), filters=Filters(exclude_authors=("frank", "g*")))
        )
        assert 1 not in {r.number for r in _refs(quiet, "hot")}
        assert quiet.counts == COUNTS[SGLANG]  # authors of comments only: the items stay


# -- cost ---------------------------------------------------------------------------------------


async def test_each_repository_syncs_with_its_own_cursors_and_a_repeat_is_cheap() -> None:
    """A cold two-repository digest costs what the two single digests cost; a repeat within
    minutes, after the sync gate's freshness, at most 2 requests per repository."""
    singles = 0
    for repo in (VLLM, SGLANG):
        async with scope_rig() as alone:
            await alone.digest(request((repo,)))
            singles += alone.requests()
    async with scope_rig() as rig:
        await rig.digest(request())
        assert 0 < rig.requests() <= singles
        assert rig.requests(VLLM) > 0 and rig.requests(SGLANG) > 0
        before = {repo: rig.requests(repo) for repo in (VLLM, SGLANG)}
        rig.clock.advance(timedelta(minutes=3))
        again = await rig.digest(request())
        assert again.counts == TOTAL
        for repo in (VLLM, SGLANG):
            assert rig.requests(repo) - before[repo] <= 2


def test_a_request_without_a_scope_is_its_repository() -> None:
    req = DigestRequest(VLLM, request().window, Lang.EN, "template", ())
    assert req.subject == Scope.one(VLLM) and req.repos == (VLLM,)
