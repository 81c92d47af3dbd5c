"""The runtime every command needs: the digest service, the command runner, and Redis outages
through the real runtime."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from pathlib import Path

import pytest

from bot.commands import messages
from bot.commands.dispatch import Dispatcher, Reply, granted
from bot.commands.subscriptions import ChannelSubscriptions
from bot.compose import Runtime, build_runtime
from config.settings import load_config
from digest.errors import DigestError, StateUnavailable
from digest.schedule.subscriptions import StateSubscriptions
from tests.bot.compose.conftest import NOW, REPO, at_now, redis_replica, settings_for
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.redis_server import RedisServer, free_port

COMMANDS = ("today", "topic rocm", "ask what's new in ROCm?", "subscriptions", "help")


async def _say(runtime: Runtime, text: str) -> str:
    """What a chat user sees for ``text``: the reply, or a line about the built result."""
    subscriptions = ChannelSubscriptions(StateSubscriptions(runtime.state), at_now)
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
        redis_replica(github, tmp_path / "a.db", redis_server.url) as a,
        redis_replica(github, tmp_path / "b.db", redis_server.url) as b,
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
    """A replica whose Redis never answered still starts and answers digests and questions;
    its digests name the companies of the people in them as Redis's would (from profiles
    kept in the local mirror)."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    async with redis_replica(github, tmp_path / "a.db", url) as a:
        assert await _say(a, "today") == "Digest: " + REPO
        assert any(r.path.startswith("/users/") for r in github.requests)
        assert await _say(a, "ask what's new in ROCm?") == "Answer: " + REPO
        assert await _say(a, "subscriptions") == messages.STATE_UNAVAILABLE


@pytest.mark.parametrize(("fresh_seconds", "repeat_requests"), [(60.0, True), (3600.0, False)])
async def test_sync_fresh_seconds_setting(
    github: FakeGitHub, tmp_path: Path, fresh_seconds: float, repeat_requests: bool
) -> None:
    """``VLLM_REPORT_SYNC_FRESH_SECONDS`` sets how long a sync is reused instead of repeated."""
    clock = Clock(NOW)
    settings = settings_for(github, tmp_path / "m.db", sync_fresh_seconds=fresh_seconds)
    async with build_runtime(settings, load_config(), clock=clock) as runtime:
        await runtime.core.build(runtime.core.request("today"))
        made = len(github.requests)
        clock.advance(timedelta(minutes=10))
        await runtime.core.build(runtime.core.request("today"))
    assert (len(github.requests) > made) is repeat_requests


async def test_the_runtime_follows_only_what_may_be_followed(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """Built from the settings: chat's subscribe to a private repository is refused, as is any
    digest of it (the command line's included), before its issues are ever listed; the
    default repository answers; a repository off ``VLLM_REPORT_ALLOWED_REPOS`` is refused
    without a request."""
    from bot.commands.grammar import DigestCommand, Options
    from digest.errors import RepoRefused

    github.add_repo("acme/secret", private=True)
    settings = settings_for(github, tmp_path / "mirror.sqlite3")
    async with build_runtime(settings, load_config(), clock=at_now) as runtime:
        said = await _say(runtime, "subscribe repo:acme/secret")
        assert said.startswith("acme/secret is a private repository")
        with pytest.raises(RepoRefused, match="private"):
            await runtime.core.digest(DigestCommand("today", options=Options(repo="acme/secret")))
        assert not any(r.path.startswith("/repos/acme/secret/") for r in github.requests)
        assert await _say(runtime, "today") == f"Digest: {REPO}"
        assert await runtime.subscriptions.all_subscriptions() == []
    listed = settings_for(github, tmp_path / "other.sqlite3", allowed_repos="vllm-project/*")
    async with build_runtime(listed, load_config(), clock=at_now) as runtime:
        made = len(github.requests)
        said = await _say(runtime, "today repo:acme/secret")
        assert "not on this bot's list of allowed repositories (allowed: vllm-project/*" in said
        assert len(github.requests) == made
