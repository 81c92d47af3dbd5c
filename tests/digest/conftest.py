"""Shared set-up of the question tests: the real sample and synthetic data in a SQLite mirror."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest

from bot.commands.grammar import command_line
from config.settings import AppConfig, load_config
from digest.ask import AnswerWriter, Asker, RepoInfo
from digest.backends.sqlite.mirror import SQLiteStore
from digest.github.parse import comment_from_api, item_from_api
from digest.mirror.store import Sync
from digest.models import Answer, Inline, ItemRef, Paragraph, Pointer, Subheading, UserRef
from tests.support.paths import SAMPLE
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate

SAMPLE_NOW = datetime(2026, 2, 1, 3, 44, tzinfo=UTC)  # the end of the sample's digest window
REPO = "vllm-project/vllm"
# Read off the sample by hand: the [ROCm]/[ROCM]/[AITER]-tagged PRs and the rocm-labelled RFC.
SAMPLE_ROCM_WEEK = frozenset({32492, 33443, 33463, 33478, 33492})
SAMPLE_ROCM_DAY = frozenset({32492, 33463, 33478, 33492})  # 33443 was created the day before


@cache
def sample_rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    raw = json.loads(SAMPLE.read_text("utf-8"))
    return raw["issues"], raw["comments"]


@cache
def synthetic(days: int) -> Dataset:
    return generate(days=days, now=DEFAULT_NOW, seed=1, repo=REPO)


async def fill(
    store: SQLiteStore, issues: Sequence[dict[str, Any]], comments: Sequence[dict[str, Any]]
) -> None:
    """Put API rows into the mirror, as a sync would."""
    await store.upsert_items([item_from_api(row, REPO) for row in issues])
    await store.upsert_comments([comment_from_api(row, REPO) for row in comments])


def make_asker(
    store: SQLiteStore,
    now: datetime,
    *,
    config: AppConfig | None = None,
    sync: Sync | None = None,
    writer: AnswerWriter | None = None,
) -> Asker:
    """An asker over ``store`` with the default configuration and a fixed clock."""
    config = config or load_config()
    return Asker(
        store=store,
        clock=lambda: now,
        topics=tuple(config.topic(name) for name in config.topics),
        repos=tuple(
            RepoInfo(name, config.display_name(name), conf.timezone, conf.day_start)
            for name, conf in config.repos.items()
        ),
        default_repo=config.default_repo,
        sync=sync,
        writer=writer,
    )


@pytest.fixture
async def empty_store() -> AsyncIterator[SQLiteStore]:
    store = SQLiteStore(":memory:")
    yield store
    await store.close()


@pytest.fixture
async def sample_store(empty_store: SQLiteStore) -> SQLiteStore:
    await fill(empty_store, *sample_rows())
    return empty_store


@pytest.fixture
def sample_asker(sample_store: SQLiteStore) -> Asker:
    return make_asker(sample_store, SAMPLE_NOW)


@pytest.fixture
def week() -> Dataset:
    return synthetic(7)


@pytest.fixture
def day() -> Dataset:
    return synthetic(1)


@pytest.fixture
async def week_asker(empty_store: SQLiteStore, week: Dataset) -> Asker:
    await fill(empty_store, week.issues, week.comments)
    return make_asker(empty_store, week.now)


@pytest.fixture
async def day_asker(empty_store: SQLiteStore, day: Dataset) -> Asker:
    await fill(empty_store, day.issues, day.comments)
    return make_asker(empty_store, day.now)


def plain(answer: Answer) -> str:
    """Everything an answer says, as plain text (links as ``#N``, people as ``@login``)."""
    parts: list[str] = []
    for block in answer.blocks:
        if isinstance(block, Subheading):
            parts.append(block.text)
            continue
        rows = [block.spans] if isinstance(block, Paragraph) else list(block.items)
        for spans in rows:
            parts.append("".join(_span(span) for span in spans))
    return "\n".join(parts)


def _span(span: Inline) -> str:
    if isinstance(span, ItemRef):
        return f"#{span.number} {span.title}".rstrip()
    if isinstance(span, UserRef):
        return f"@{span.login}"
    if isinstance(span, Pointer):
        return command_line(span)
    return span.text
