"""What ``serve`` runs, built on a runtime; and ``serve`` itself."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.compose import build_runtime
from bot.compose.services import EXIT_CONFIG, NO_FRONT_END, build_services, cut_short_note, serve
from config.settings import SlackSettings, load_config
from digest.builder import DigestRequest
from digest.models import Window
from digest.schedule.command_threads import CommandThreads, OpenThread
from tests.bot.compose.conftest import at_now, redis_replica, settings_for
from tests.fakes.github import FakeGitHub
from tests.fakes.slack import start_fake_slack, stop_fake_slack
from tests.support.paths import ROOT
from tests.support.redis_server import RedisServer
from tests.support.serve import SCHEDULED, ServeParts, front_end_settings, serve_parts


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


async def test_no_front_end_says_what_to_configure_and_fails() -> None:
    """Without any token serve prints what to set and exits non-zero."""
    err = io.StringIO()
    code = await serve(front_end_settings(), load_config(), handle_signals=False, err=err)
    assert code == EXIT_CONFIG != 0
    assert err.getvalue().startswith(NO_FRONT_END)
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "DISCORD_TOKEN"):
        assert name in err.getvalue()


@pytest.mark.slow
def test_serve_command_without_tokens_exits_with_the_configuration_code() -> None:
    """`vllm-report serve` with no chat token prints what to set and exits with code 6."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SLACK_", "DISCORD_", "REDIS_", "VLLM_REPORT_HTTP"))
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == EXIT_CONFIG == 6
    assert done.stderr.startswith(NO_FRONT_END) and "Traceback" not in done.stderr


@pytest.fixture
async def test_runtime() -> AsyncIterator[ServeParts]:
    async with serve_parts(SCHEDULED) as parts:
        yield parts


async def test_a_dead_replicas_command_thread_is_completed_on_its_platform(
    test_runtime: ServeParts,
) -> None:
    """A Slack thread and a Discord thread that a dead replica left open: a Slack-only
    process completes the Slack one, the whole digest under one parent, and leaves the
    Discord one to a process that has Discord."""
    clock = test_runtime.clock
    dead = CommandThreads(test_runtime.ledger, clock=clock, owner="dead")
    request = test_runtime.core.request("2026-01-31")
    for platform, channel in (("slack", "C0000001"), ("discord", "123")):
        await dead.open(platform=platform, channel=channel, user="U1", request=request)
    (discord_key,) = [
        key
        for key, doc in (await test_runtime.ledger.open_threads()).items()
        if doc["platform"] == "discord"
    ]
    clock.advance(timedelta(minutes=11))  # the dead replica's claims have expired
    fake = await start_fake_slack()
    try:
        made = front_end_settings(slack="socket", api_url=fake.api_url)
        services = build_services(made, load_config(), test_runtime, clock=clock, slack_pace_s=0)
        assert services.front_ends == ("slack-socket",)
        assert await services.threads.recover() == 1
        parent, *replies = fake.posts
        assert parent["channel"] == "C0000001" and "thread_ts" not in parent and replies
        assert all(r["thread_ts"] == parent["_ts"] for r in replies)
        assert list(await test_runtime.ledger.open_threads()) == [discord_key]
        assert services.threads.counters["threads_resumed"] == 1
    finally:
        await stop_fake_slack(fake)


async def test_redis_health_is_checked_only_with_redis(
    github: FakeGitHub, redis_server: RedisServer, tmp_path: Path
) -> None:
    """``/healthz`` asks Redis whether it answers only when the runtime's storage is Redis."""
    slack = SlackSettings(bot_token="xoxb-x", app_token="xapp-1-x")
    local = settings_for(github, tmp_path / "a.db", slack=slack)
    async with build_runtime(local, load_config(), clock=at_now) as runtime:
        assert build_services(local, load_config(), runtime).redis_reachable is None
    async with redis_replica(github, tmp_path / "b.db", redis_server.url) as runtime:
        shared = runtime.settings.model_copy(update={"slack": slack})
        reachable = build_services(shared, load_config(), runtime).redis_reachable
        assert reachable is not None and await reachable()


async def test_without_a_mirror_there_is_no_site_chart_or_refresh(
    test_runtime: ServeParts,
) -> None:
    """A runtime without a mirror and its sync gets no website, even with a site URL set, and
    no background refresh."""
    made = front_end_settings(slack="socket")
    made.site_url = "https://bot.example/reports/"
    services = build_services(made, load_config(), test_runtime)
    assert services.site is None and services.site_root is None and services.refresh is None


async def test_serves_refresh_prunes_the_mirror_nobody_wants(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """Built by ``build_services`` over the SQLite runtime: a refresh round syncs the default
    repository and prunes a mirrored repository nobody follows or asked for, keeping one
    asked for."""
    from tests.support.store_samples import item

    slack = SlackSettings(bot_token="xoxb-x", app_token="xapp-1-x")
    made = settings_for(github, tmp_path / "m.db", slack=slack)
    async with build_runtime(made, load_config(), clock=at_now) as runtime:
        await runtime.store.upsert_items([item(1, "o/forgotten"), item(1, "o/asked")])
        assert runtime.access is not None
        await runtime.access.asked("o/asked")
        refresh = build_services(made, load_config(), runtime).refresh
        assert refresh is not None
        await refresh.sync_once()
        await refresh.prune_due()
        assert await runtime.store.mirrored_repos() == ["o/asked", "vllm-project/vllm"]  # type: ignore[attr-defined]
        assert refresh.counters["mirrors_pruned"] == 1
