"""Items as they stood when the window closed: a later merge or close shows as a note."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from digest.analysis.fates import fixing
from digest.backends.sqlite.mirror import SQLiteStore
from digest.builder import DigestBuilder, DigestRequest
from digest.codec import decode_digest, encode_digest
from digest.models import (
    Digest,
    Item,
    ItemKind,
    ItemRef,
    ItemState,
    Lang,
    Later,
    Text,
    Window,
    iter_spans,
)
from digest.render.json import dumps
from digest.render.markdown import render_markdown
from digest.scope import Scope
from digest.writers.later import later_text
from digest.writers.template import TemplateWriter
from tests.support.store_samples import at, comment, item

WINDOW = Window(at(0), at(24), "Asia/Shanghai", "2026-03-10")
NOW = at(24 * 40)  # built more than a month later


@pytest.fixture
async def store() -> AsyncIterator[SQLiteStore]:
    """A day with a PR merged three days after it, an issue closed as a duplicate after it,
    and a PR merged within it; the PR merged later is the day's most discussed item."""
    store = SQLiteStore(":memory:")
    pr_url = "https://github.com/vllm-project/vllm/pull/"
    later_pr = item(
        5,
        kind=ItemKind.PR,
        title="[ROCm] Fix the MI300X attention crash",
        url=pr_url + "5",
        created_at=at(2),
        updated_at=at(24 * 5),
        state=ItemState.CLOSED,
        closed_at=at(24 * 4 + 1),
        merged_at=at(24 * 4 + 1),
    )
    duplicate = item(
        6,
        created_at=at(3),
        updated_at=at(24 * 6),
        state=ItemState.CLOSED,
        state_reason="duplicate",
        closed_at=at(24 * 6),
    )
    merged = item(
        7,
        kind=ItemKind.PR,
        url=pr_url + "7",
        created_at=at(1),
        state=ItemState.CLOSED,
        closed_at=at(5),
        merged_at=at(5),
    )
    await store.upsert_items([later_pr, duplicate, merged])
    talk = [
        comment(
            100 + n,
            item_number=5,
            author=f"user{n % 4}",
            created_at=at(3 + n),
            body_excerpt=f"The MI300X path still crashes with config {n}.",
        )
        for n in range(8)
    ]
    await store.upsert_comments(talk)
    try:
        yield store
    finally:
        await store.close()


async def _build(store: SQLiteStore, lang: Lang) -> Digest:
    builder = DigestBuilder(
        store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: NOW
    )
    return await builder.build(DigestRequest("vllm-project/vllm", WINDOW, lang, "template", ()))


async def test_a_pr_merged_after_the_window_reads_as_open_with_its_merge_noted(
    store: SQLiteStore,
) -> None:
    """The PR merged three days after the window is a new, open PR of that day, not a merged
    one, and every section that links it says "merged 3 days later" right after the link."""
    digest = await _build(store, Lang.EN)
    lists = dict(digest.lists)
    assert [i.number for i in lists["merged_prs"]] == [7]
    (pr,) = [i for i in lists["new_prs"] if i.number == 5]
    assert pr.state is ItemState.OPEN and pr.merged_at is None
    assert digest.counts.merged_prs == 1
    citing = [s for s in digest.sections if 5 in s.cites]
    assert len(citing) >= 2, [s.id for s in digest.sections]
    for section in citing:
        spans = iter_spans(section.blocks)
        first = next(k for k, s in enumerate(spans) if isinstance(s, ItemRef) and s.number == 5)
        assert spans[first + 1] == Text(" (merged 3 days later)"), section.id
    markdown = render_markdown(digest)
    assert "(merged 3 days later)" in markdown
    assert "closed as a duplicate later, on 2026-03-16" in markdown  # the day in the window's zone


async def test_the_notes_read_as_chinese_in_the_zh_digest(store: SQLiteStore) -> None:
    """The zh digest notes the same fates in Chinese."""
    markdown = render_markdown(await _build(store, Lang.ZH))
    assert "（3 天后合并）" in markdown
    assert "（后于 2026-03-16 作为重复问题关闭）" in markdown


async def test_the_json_says_what_is_as_of_the_window_end_and_what_came_later(
    store: SQLiteStore,
) -> None:
    """The JSON states are the window end's; ``later`` holds each fate; ``as_of`` says the
    states are the window end's and titles and labels the mirror's as synced."""
    digest = await _build(store, Lang.EN)
    doc = json.loads(dumps(digest))
    assert doc["as_of"] == {"states": "2026-03-11T03:21:00Z", "edits": "provenance.synced_at"}
    assert doc["later"] == [
        {"number": 5, "event": "merged", "at": "2026-03-14T04:21:00Z", "reason": None},
        {"number": 6, "event": "closed", "at": "2026-03-16T03:21:00Z", "reason": "duplicate"},
    ]
    (entry,) = [e for e in doc["lists"]["new_prs"] if e["number"] == 5]
    assert entry["state"] == "open" and entry["merged_at"] is None
    assert entry["later"]["event"] == "merged"
    (merged,) = doc["lists"]["merged_prs"]
    assert merged["later"] is None


async def test_the_cache_codec_keeps_the_fates(store: SQLiteStore) -> None:
    """A digest read back from the cache carries the same fates."""
    digest = await _build(store, Lang.EN)
    assert decode_digest(encode_digest(digest)).later == digest.later


async def test_a_window_ending_now_has_no_fates(store: SQLiteStore) -> None:
    """Nothing has happened yet after a window that ends now: no note, no ``later``."""
    end = at(24 * 7)
    window = Window(at(0), end, "UTC", "7d", ends_now=True)
    builder = DigestBuilder(
        store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: end
    )
    request = DigestRequest("vllm-project/vllm", window, Lang.EN, "template", ())
    digest = await builder.build(request)
    assert digest.later == ()
    assert [i.number for i in dict(digest.lists)["merged_prs"]] == [5, 7]
    assert "later)" not in render_markdown(digest)


SGLANG = "sgl-project/sglang"


def _fixed_issue(repo: str = "vllm-project/vllm") -> list[Item]:
    """An issue of the window closed as completed three days after it by PR 9 (merged half a
    minute before the close, after the window: not among its items), with two PRs that do not
    count: one saying it fixes the issue but merged hours before the close, one merged at the
    close but fixing another issue."""
    closed = at(24 * 4 + 2)
    pr_url = f"https://github.com/{repo}/pull/"

    def pr(number: int, merged: datetime, fixes: tuple[int, ...]) -> Item:
        return item(
            number,
            repo,
            kind=ItemKind.PR,
            title=f"[ROCm] Fix {number}",
            url=pr_url + str(number),
            created_at=at(24 * 2),
            updated_at=merged,
            state=ItemState.CLOSED,
            closed_at=merged,
            merged_at=merged,
            fixes=fixes,
        )

    issue = item(
        8,
        repo,
        title="[Bug] MI300X hangs on start",
        created_at=at(4),
        updated_at=closed,
        state=ItemState.CLOSED,
        state_reason="completed",
        closed_at=closed,
    )
    return [
        issue,
        pr(9, closed - timedelta(seconds=30), (8,)),
        pr(10, closed - timedelta(hours=2), (8,)),
        pr(11, closed, (99,)),
    ]


async def test_an_issue_closed_later_by_a_pr_names_that_pr_as_a_link(
    store: SQLiteStore,
) -> None:
    """An old day's issue that a PR merged three days later closed reads "fixed 3 days later
    by #9", #9 linking the PR, in the Markdown, the JSON and the cache (zh: "3 天后由 #9 修复");
    PRs merged hours from the close, or fixing another issue, are not named."""
    await store.upsert_items(_fixed_issue())
    en, zh = await _build(store, Lang.EN), await _build(store, Lang.ZH)
    pull = "https://github.com/vllm-project/vllm/pull/9"
    citing = [s for s in en.sections if 8 in s.cites]
    assert citing, [s.id for s in en.sections]
    for section in citing:
        spans = iter_spans(section.blocks)
        first = next(k for k, s in enumerate(spans) if isinstance(s, ItemRef) and s.number == 8)
        assert tuple(spans[first + 1 : first + 4]) == (
            Text(" (fixed 3 days later by "),
            ItemRef(9, pull),
            Text(")"),
        ), section.id
    assert f"(fixed 3 days later by [#9]({pull}))" in render_markdown(en)
    assert f"（3 天后由 [#9]({pull}) 修复）" in render_markdown(zh)
    assert "10 " not in later_text(next(f for f in en.later if f.number == 8), WINDOW, Lang.EN)
    doc = json.loads(dumps(en))
    (fate,) = [f for f in doc["later"] if f["number"] == 8]
    assert fate == {
        "number": 8,
        "event": "closed",
        "at": "2026-03-14T05:21:00Z",
        "reason": "completed",
        "by": 9,
    }
    assert "by" not in next(f for f in doc["later"] if f["number"] == 6)
    assert decode_digest(encode_digest(en)).later == en.later


async def test_in_a_scope_the_fixing_pr_names_its_repository(store: SQLiteStore) -> None:
    """In a digest of two repositories the fixing PR is labelled like every other link, with
    its repository: ``sgl-project/sglang#9``, linking that repository's PR."""
    await store.upsert_items(_fixed_issue(SGLANG))
    request = DigestRequest(
        "vllm-project/vllm",
        WINDOW,
        Lang.EN,
        "template",
        (),
        scope=Scope(repos=("vllm-project/vllm", SGLANG)),
    )
    builder = DigestBuilder(
        store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: NOW
    )
    digest = await builder.build(request)
    pull = f"https://github.com/{SGLANG}/pull/9"
    (fate,) = [f for f in digest.later if f.number == 8]
    assert (fate.repo, fate.by) == (SGLANG, 9)
    assert f"(fixed 3 days later by [{SGLANG}#9]({pull}))" in render_markdown(digest)
    assert json.loads(dumps(digest))["later"][-1]["by"] == 9


def test_the_fixing_pr_is_the_nearest_merge_to_the_close_within_five_minutes() -> None:
    """Of the PRs that say they fix an issue, the one merged nearest its close, at most five
    minutes before or after it, is named; an issue closed as not planned names none."""
    issue, nine, ten, _other = _fixed_issue()
    assert issue.closed_at is not None
    close = Later(8, "closed", issue.closed_at, "completed")
    after = replace(ten, number=12, merged_at=issue.closed_at + timedelta(minutes=4))
    late = replace(ten, number=13, merged_at=issue.closed_at + timedelta(minutes=6))
    assert fixing(close, [nine, ten, after, late], issue.repo).by == 9
    assert fixing(close, [ten, after, late], issue.repo).by == 12
    assert fixing(close, [ten, late], issue.repo).by is None
    assert fixing(replace(close, reason="not_planned"), [nine], issue.repo).by is None
