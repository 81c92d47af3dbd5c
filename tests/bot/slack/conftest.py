"""Slack test fixtures: a fake Slack, a Web API client on it, a real core over the sample."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.runner import ReportCore
from bot.compose.questions import question_asker
from config.settings import load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.builder import DigestBuilder, DigestRequest
from digest.github.parse import comment_from_api, item_from_api
from digest.models import Digest, Window
from digest.writers.template import TemplateWriter
from tests.fakes.slack import FakeSlack, start_fake_slack, stop_fake_slack
from tests.support.paths import SAMPLE as DATA

REPO = "vllm-project/vllm"
NOW = datetime(2026, 2, 1, 4, 0, tzinfo=UTC)
HOSTILE_NUMBER = 33999
HOSTILE_TITLE = (
    "<!channel> urgent <@U0123ABCD> see <https://evil.example/x|github.com/vllm-project/vllm/pull/1>"
    " @here & @everyone"
)
BOT_TOKEN = "xoxb-test-token"
SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def sample_rows(*, hostile: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The real sample's issue and comment rows; optionally one more PR with a hostile title."""
    data = json.loads(DATA.read_text("utf-8"))
    issues: list[dict[str, Any]] = data["issues"]
    if hostile:
        row = copy.deepcopy(next(r for r in issues if isinstance(r.get("pull_request"), dict)))
        row.update(
            number=HOSTILE_NUMBER,
            title=HOSTILE_TITLE,
            html_url=f"https://github.com/{REPO}/pull/{HOSTILE_NUMBER}",
            created_at="2026-01-31T10:00:00Z",
            updated_at="2026-01-31T10:00:00Z",
            closed_at=None,
            state="open",
        )
        row["pull_request"] = {**row["pull_request"], "merged_at": None}
        row["user"] = {"login": "mallory", "type": "User"}
        issues = [*issues, row]
    return issues, data["comments"]


async def sample_store(*, hostile: bool = False) -> SQLiteStore:
    store = SQLiteStore(":memory:")
    issues, comments = sample_rows(hostile=hostile)
    await store.upsert_items([item_from_api(r, REPO) for r in issues])
    await store.upsert_comments([comment_from_api(r, REPO) for r in comments])
    return store


def builder(store: SQLiteStore, now: datetime = NOW) -> DigestBuilder:
    return DigestBuilder(
        store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: now
    )


async def sample_digest(lang: str) -> Digest:
    """The template digest of the sample's own window, through the real pipeline."""
    data = json.loads(DATA.read_text("utf-8"))
    start = datetime.fromisoformat(data["window"]["start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(data["window"]["end"].replace("Z", "+00:00"))
    store = await sample_store()
    try:
        config = load_config()
        request = DigestRequest(
            repo=REPO,
            window=Window(start, end, "Asia/Shanghai", "2026-01-31"),
            lang=lang,
            writer="template",
            topics=config.topics_for(REPO),
            display_name="vLLM",
            organisations=config.organisation_map(),
        )
        return await builder(store, end + timedelta(minutes=5)).build(request)
    finally:
        await store.close()


async def eventually(predicate: Callable[[], bool], within: float = 5.0) -> None:
    """Wait (polling, at most ``within`` seconds) until ``predicate()`` holds."""
    async with asyncio.timeout(within):
        while not predicate():  # noqa: ASYNC110 - polls state that has no event of its own
            await asyncio.sleep(0.01)


def logged(caplog: pytest.LogCaptureFixture, event: str) -> int:
    return sum(1 for r in caplog.records if r.getMessage() == event)


@pytest.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    server = await start_fake_slack()
    yield server
    await stop_fake_slack(server)


@pytest.fixture
def web_client(fake: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_url)


@pytest.fixture
async def core() -> AsyncIterator[ReportCore]:
    """A real core over the sample (plus one hostile title), clock fixed after its window."""
    store = await sample_store(hostile=True)
    config = load_config()
    yield ReportCore(
        config=config,
        get_digest=builder(store).build,
        clock=lambda: NOW,
        asker=question_asker(config, store, clock=lambda: NOW),
    )
    await store.close()


@pytest.fixture
def caplog_info(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="bot.slack")
    return caplog
