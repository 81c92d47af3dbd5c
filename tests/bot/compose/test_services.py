"""What ``serve`` runs, built on a runtime; and ``serve`` itself."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.compose import build_runtime
from bot.compose.services import EXIT_CONFIG, NO_FRONT_END, build_services, cut_short_note, serve
from bot.process.serve import BotProcess
from config.settings import GitHubSettings, RedisSettings, Settings, SlackSettings, load_config
from digest.builder import DigestRequest
from digest.models import Window
from digest.schedule.command_threads import CommandThreads, OpenThread
from digest.schedule.subscription import Subscription
from tests.bot.compose.conftest import at_now, redis_replica, rows, settings_for
from tests.fakes.github import FakeGitHub
from tests.fakes.slack import slash_payload, start_fake_slack, stop_fake_slack
from tests.support.clock import Clock
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


async def test_below_the_reserve_commands_wait_and_the_daily_post_goes_out_complete(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """With 1,000 of GitHub's 5,000 requests left (below the 30 % reserve), the daily post at
    11:21 syncs and goes out complete; then a member's command for an older day is refused
    with the reset time, without a request to GitHub."""
    github.leave(1000)
    fake = await start_fake_slack()
    settings = Settings(
        github=GitHubSettings(api_url=github.url, token="ghp_test"),
        slack=SlackSettings(bot_token="xoxb-x", app_token="xapp-1-test", api_url=fake.api_url),
        redis=RedisSettings(url=None),
        db=str(tmp_path / "m.db"),
        http_port=0,
    )
    config = load_config()
    stop = asyncio.Event()
    try:
        async with build_runtime(settings, config, clock=at_now) as runtime:
            await runtime.subscriptions.put_subscription(
                Subscription("slack", "C0000001", "vllm-project/vllm", "11:21", "Asia/Shanghai")
            )
            services = build_services(settings, config, runtime, clock=at_now, slack_pace_s=0)
            task = asyncio.create_task(BotProcess(services, stop=stop, drain_s=5).run())
            await fake.wait_connected()
            scheduler = services.scheduler
            async with asyncio.timeout(20):
                while scheduler.counters["posts_made"] < 1:  # noqa: ASYNC110 - no event to wait on
                    await asyncio.sleep(0.02)
            daily = list(fake.posts)
            assert daily[0]["channel"] == "C0000001" and "thread_ts" not in daily[0]
            assert all(p["thread_ts"] == daily[0]["_ts"] for p in daily[1:])
            assert not any("not synced" in str(p) for p in daily)
            assert scheduler.counters["posts_incomplete"] == scheduler.counters["post_errors"] == 0
            assert "#101" in str(daily) or "/101" in str(daily)

            sent = len(github.requests)
            envelope = {
                "envelope_id": "env-old",
                "type": "slash_commands",
                "payload": slash_payload(
                    "2026-03-01", trigger_id="trig-old", response_url=fake.response_url("old")
                ),
                "accepts_response_payload": True,
            }
            await fake.send_envelope(envelope)
            await fake.wait_until(lambda: any(r["_name"] == "old" for r in fake.responses))
            (refused,) = [r for r in fake.responses if r["_name"] == "old"]
            assert refused["text"] == (
                "The bot is saving its GitHub budget for the daily posts; try again after "
                "04:21 UTC (in about 60 min)."
            )
            assert refused["response_type"] == "ephemeral"
            assert not [r for r in github.requests[sent:] if "2026-03-0" in str(r.query)]
            assert len(fake.posts) == len(daily)
            stop.set()
            assert await asyncio.wait_for(task, 15) == 0
    finally:
        stop.set()
        await stop_fake_slack(fake)


async def test_a_daily_post_that_went_out_behind_is_corrected_in_its_thread(
    tmp_path: Path,
) -> None:
    """GitHub's limit runs out in the middle of the 11:21 sync: the daily post goes out once,
    saying what is missing; after the reset, the next pass posts one short correction with the
    complete figures in the post's thread, and later passes post nothing more."""
    clock = Clock(at_now())
    fake = await start_fake_slack()
    try:
        async with FakeGitHub(clock=clock) as github:
            issues, comments = rows()
            github.add_repo("vllm-project/vllm", issues=issues, comments=comments)
            github.leave(2)  # the issues and the comments; not the review comments
            settings = Settings(
                github=GitHubSettings(api_url=github.url),
                slack=SlackSettings(
                    bot_token="xoxb-x", app_token="xapp-1-test", api_url=fake.api_url
                ),
                redis=RedisSettings(url=None),
                db=str(tmp_path / "m.db"),
                http_port=0,
            )
            config = load_config()
            async with build_runtime(settings, config, clock=clock) as runtime:
                await runtime.subscriptions.put_subscription(
                    Subscription("slack", "C0000001", "vllm-project/vllm", "11:21", "Asia/Shanghai")
                )
                services = build_services(settings, config, runtime, clock=clock, slack_pace_s=0)
                scheduler = services.scheduler
                assert await scheduler.tick() == 1
                daily = list(fake.posts)
                assert "not synced yet" in str(daily)
                parent = daily[0]["_ts"]
                clock.advance(timedelta(minutes=30))
                await scheduler.tick()  # still before the reset: nothing to correct yet
                assert len(fake.posts) == len(daily)
                clock.advance(timedelta(minutes=31))
                await scheduler.tick()
                (correction,) = fake.posts[len(daily) :]
                assert correction["thread_ts"] == parent
                assert correction["text"] == (
                    "Correction: this digest went out before the GitHub sync had caught up "
                    "(rate limit); it has now, and the complete figures are: New issues 1 | "
                    "Closed issues 0 | New PRs 1 | Merged PRs 1 | Closed unmerged PRs 0"
                )
                clock.advance(timedelta(minutes=10))
                await scheduler.tick()
                assert len(fake.posts) == len(daily) + 1
                assert scheduler.corrections is not None
                assert scheduler.corrections.counters["posts_corrected"] == 1
                assert re.search(
                    r"_posts_corrected_total 1(\.0)?$", services.metrics.render(), re.M
                )
    finally:
        await stop_fake_slack(fake)


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


async def test_a_scope_subscription_keeps_every_repository_of_its_scope_mirrored(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """A refresh round follows each repository a subscription reports on: all of a configured
    scope's and all of an ad hoc list's, not only the first, so none of them is pruned."""
    from tests.support.store_samples import item

    config_file = tmp_path / "config.yaml"
    config_file.write_text("scopes:\n  serving:\n    repos: [o/a, o/b]\n", "utf-8")
    config = load_config(config_file)
    slack = SlackSettings(bot_token="xoxb-x", app_token="xapp-1-x")
    made = settings_for(github, tmp_path / "m.db", slack=slack)
    async with build_runtime(made, config, clock=at_now) as runtime:
        repos = ["o/a", "o/b", "o/c", "o/d", "o/forgotten"]
        await runtime.store.upsert_items([item(1, repo) for repo in repos])
        subscribe = runtime.subscriptions.put_subscription
        common = {"platform": "slack", "time": "09:00", "timezone": "UTC"}
        await subscribe(Subscription(channel="C1", repo="o/a", scope="serving", **common))
        await subscribe(Subscription(channel="C2", repo="o/c", repos=("o/c", "o/d"), **common))
        refresh = build_services(made, config, runtime).refresh
        assert refresh is not None
        await refresh.sync_once()
        await refresh.prune_due()
        mirrored = await runtime.store.mirrored_repos()  # type: ignore[attr-defined]
        assert mirrored == ["o/a", "o/b", "o/c", "o/d", "vllm-project/vllm"]
