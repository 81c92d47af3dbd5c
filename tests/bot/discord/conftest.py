"""Discord test fixtures: a real core over the stored sample day, the fake Discord, a bot."""

from __future__ import annotations

import asyncio
import copy
import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.commands.buttons import DigestButtons
from bot.commands.defaults import DefaultsStore
from bot.commands.dispatch import RateLimiter
from bot.commands.grammar import DigestCommand, Options
from bot.commands.runner import ReportCore
from bot.commands.tracking import ThreadJournal
from bot.compose.questions import question_asker
from bot.discord import DiscordFrontEnd, ReportClient, build_discord_client
from bot.discord.endpoints import point_discord_at
from bot.discord.post import ChartFn
from config.settings import DiscordSettings, load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.builder import DigestBuilder, DigestRequest
from digest.github.parse import comment_from_api, item_from_api
from digest.models import Digest
from digest.writers.template import TemplateWriter
from tests.fakes.discord import TOKEN, FakeDiscord
from tests.fakes.subscriptions import MemorySubscriptions
from tests.support.paths import SAMPLE as DATA
from tests.support.synthetic import DEFAULT_NOW, generate

NOW = datetime(2026, 2, 1, 4, 0, tzinfo=UTC)
REPO = "vllm-project/vllm"
HOSTILE_TITLE = (
    "@everyone @here <@123456> <@&42> <#77> [github.com/vllm-project/vllm](https://evil.example) "
    "**bold** __under__ ||spoiler|| `tick` > quote # heading"
)
HOSTILE_LOGIN = "everyone"


def sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text("utf-8"))
    return data


def hostile_rows() -> list[dict[str, Any]]:
    """Two items of the sample day with titles, bodies and logins written to attack Discord."""
    base = next(r for r in sample()["issues"] if r["number"] == 33478)
    rows = []
    for number, is_pr in ((99001, False), (99002, True)):
        row = copy.deepcopy(base)
        row.update(
            number=number,
            title=f"[ROCm] {HOSTILE_TITLE}",
            state="open",
            closed_at=None,
            state_reason=None,
            body=f"ROCm MI300X {HOSTILE_TITLE}",
            user={"login": HOSTILE_LOGIN, "type": "User"},
            created_at="2026-01-31T12:00:00Z",
            updated_at="2026-01-31T12:00:00Z",
        )
        row["pull_request"] = {"merged_at": None} if is_pr else None
        rows.append(row)
    return rows


async def make_store(rows: list[dict[str, Any]], comments: list[dict[str, Any]]) -> SQLiteStore:
    store = SQLiteStore(":memory:")
    await store.upsert_items([item_from_api(r, REPO) for r in rows])
    await store.upsert_comments([comment_from_api(r, REPO) for r in comments])
    return store


def make_core(
    store: SQLiteStore,
    now: datetime = NOW,
    get_digest: Callable[[DigestRequest], Awaitable[Digest]] | None = None,
) -> ReportCore:
    """The real core: template writer over ``store``, with a fixed clock."""
    builder = DigestBuilder(
        store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: now
    )
    config = load_config()
    return ReportCore(
        config=config,
        get_digest=get_digest or builder.build,
        clock=lambda: now,
        asker=question_asker(config, store, clock=lambda: now),
    )


async def _synthetic(days: int, lang: str) -> Digest:
    data = generate(days=days, now=DEFAULT_NOW, seed=1, repo=REPO)
    store = await make_store(data.issues, data.comments)
    try:
        core = make_core(store, DEFAULT_NOW)
        return await core.digest(DigestCommand(f"{days}d", options=Options(lang=lang)))
    finally:
        await store.close()


@functools.cache
def synthetic_digest(days: int, lang: str = "en") -> Digest:
    """A template digest of ``days`` of vLLM-sized synthetic activity (built once per run)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _synthetic(days, lang)).result()


@pytest.fixture
async def store() -> AsyncIterator[SQLiteStore]:
    data = sample()
    opened = await make_store([*data["issues"], *hostile_rows()], data["comments"])
    yield opened
    await opened.close()


@pytest.fixture
def core(store: SQLiteStore) -> ReportCore:
    return make_core(store)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    yield server
    await server.close()


@pytest.fixture
def subscriptions() -> MemorySubscriptions:
    return MemorySubscriptions()


@pytest.fixture
def endpoints() -> Iterator[None]:
    """Restore discord.py's process-wide endpoints after the test."""
    previous = point_discord_at(None, None)
    point_discord_at(*previous)
    yield
    point_discord_at(*previous)


StartBot = Callable[..., Awaitable[ReportClient]]


@pytest.fixture
async def start_bot(
    fake: FakeDiscord, subscriptions: MemorySubscriptions, endpoints: None
) -> AsyncIterator[StartBot]:
    """Start a bot (logged in, gateway READY) against the fake; closed after the test."""
    running: list[tuple[ReportClient, asyncio.Task[None]]] = []

    async def start(
        core: ReportCore,
        now: datetime = NOW,
        defaults: DefaultsStore | None = None,
        buttons: DigestButtons | None = None,
        chart: ChartFn | None = None,
        threads: ThreadJournal | None = None,
        limiter: RateLimiter | None = None,
        **options: Any,
    ) -> ReportClient:
        settings = DiscordSettings(api_url=fake.api_url, gateway_url=fake.gateway_url)
        front = DiscordFrontEnd(
            core=core,
            subscriptions=subscriptions,
            clock=lambda: now,
            defaults=defaults,
            buttons=buttons,
            chart=chart,
            threads=threads,
            limiter=limiter,
        )
        client = build_discord_client(front, settings, guild_ready_timeout=0.01, **options)
        task = asyncio.create_task(client.start(TOKEN))
        running.append((client, task))
        await asyncio.wait_for(client.wait_until_ready(), 5)
        return client

    yield start
    for client, task in running:
        await client.close()
        await asyncio.wait_for(task, 5)


@pytest.fixture
async def bot(start_bot: StartBot, core: ReportCore) -> ReportClient:
    return await start_bot(core)
