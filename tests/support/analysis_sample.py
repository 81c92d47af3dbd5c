"""Test data for analysis, writers and renderers: the real vLLM sample and small item builders."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from config.settings import load_config
from digest.analysis.analyze import analyze
from digest.analysis.types import Analysis, WindowData
from digest.github.parse import comment_from_api, item_from_api, parse_time
from digest.models import Comment, Digest, Item, ItemKey, ItemKind, ItemState, Topic, Window
from digest.writers.template import TemplateWriter
from tests.support.paths import SAMPLE

REPO = "vllm-project/vllm"
REPO_URL = "https://github.com/vllm-project/vllm"
START = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
WINDOW = Window(START, START + timedelta(days=1), "Asia/Shanghai", "2026-03-10")


def rocm() -> Topic:
    """The default ``rocm`` topic of config/defaults.yaml."""
    return load_config().topic("rocm")


def sample_raw() -> dict[str, Any]:
    return json.loads(SAMPLE.read_text("utf-8"))  # type: ignore[no-any-return]


def sample_data() -> WindowData:
    """The real sample as the mirror would return it: every row, its window in Asia/Shanghai."""
    raw = sample_raw()
    start = parse_time(raw["window"]["start"])
    end = parse_time(raw["window"]["end"])
    assert start is not None and end is not None
    window = Window(start, end, "Asia/Shanghai", "2026-01-31")
    items = tuple(item_from_api(row, REPO) for row in raw["issues"])
    comments = tuple(comment_from_api(row, REPO) for row in raw["comments"])
    synced = end + timedelta(minutes=5)
    return WindowData(REPO, REPO_URL, window, items, comments, synced)


def sample_analysis() -> Analysis:
    config = load_config()
    return analyze(
        sample_data(),
        (rocm(),),
        organisations=config.organisation_map(),
        glossary=config.glossary_for(REPO),
    )


def build_digest(analysis: Analysis, lang: str) -> Digest:
    """The digest the service would build from ``analysis`` with the template writer."""
    sections = TemplateWriter().sections(analysis, lang)
    data = analysis.data
    return Digest(
        repo=data.repo,
        window=data.window,
        lang=lang,
        counts=analysis.counts,
        sections=sections,
        generated_at=data.window.end + timedelta(minutes=6),
        synced_at=data.synced_at,
        repo_url=data.repo_url,
        display_name="vLLM",
        lists=analysis.lists.pairs(),
    )


def key(number: int) -> ItemKey:
    """The key of item ``number`` of the test repository."""
    return ItemKey(REPO, number)


def make_item(
    number: int,
    title: str = "Something",
    *,
    pr: bool = False,
    author: str = "alice",
    bot: bool = False,
    labels: tuple[str, ...] = (),
    body: str = "",
    created: datetime = START + timedelta(hours=1),
    closed: datetime | None = None,
    merged: datetime | None = None,
    state: ItemState | None = None,
    state_reason: str | None = None,
    comments_total: int = 0,
    association: str = "CONTRIBUTOR",
) -> Item:
    """An issue or PR of the test repository."""
    closed = closed or merged
    return Item(
        repo=REPO,
        number=number,
        kind=ItemKind.PR if pr else ItemKind.ISSUE,
        title=title,
        author=author,
        author_is_bot=bot,
        labels=labels,
        state=state or (ItemState.CLOSED if closed else ItemState.OPEN),
        state_reason=state_reason,
        created_at=created,
        updated_at=closed or created,
        closed_at=closed,
        merged_at=merged,
        url=f"{REPO_URL}/{'pull' if pr else 'issues'}/{number}",
        body_excerpt=body,
        comments_total=comments_total,
        author_association=association,
    )


def make_comment(
    cid: int,
    number: int,
    author: str,
    body: str = "I looked at this and it works for me.",
    *,
    at: datetime = START + timedelta(hours=2),
    bot: bool = False,
) -> Comment:
    """A conversation comment on item ``number``."""
    return Comment(
        repo=REPO,
        id=cid,
        item_number=number,
        author=author,
        author_is_bot=bot,
        body_excerpt=body,
        created_at=at,
        updated_at=at,
        url=f"{REPO_URL}/issues/{number}#issuecomment-{cid}",
    )


def window_data(items: tuple[Item, ...], comments: tuple[Comment, ...] = ()) -> WindowData:
    """Window data of the test window ``WINDOW``."""
    return WindowData(REPO, REPO_URL, WINDOW, items, comments, WINDOW.end)
