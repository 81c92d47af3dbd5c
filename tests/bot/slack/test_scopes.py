"""Chat commands over several repositories and configured scopes: typed into the fake Slack's
slash command, built against the fake GitHub serving two repositories that share numbers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.run import HttpServer
from tests.bot.slack.conftest import SECRET
from tests.fakes.slack import FakeSlack, form_body, sign, slash_payload
from tests.support.scope_core import scope_core
from tests.support.scopes import NOW, SGLANG, VLLM, ScopeRig, scope_rig
from tests.support.slack_app import serve_http, slack_app


@pytest.fixture
async def rig() -> AsyncIterator[ScopeRig]:
    async with scope_rig() as found:
        yield found


@pytest.fixture
async def server(rig: ScopeRig, web_client: AsyncWebClient) -> AsyncIterator[HttpServer]:
    app = slack_app(scope_core(rig), web_client, signing_secret=SECRET, clock=lambda: NOW, pace_s=0)
    running = await serve_http(app)
    yield running
    await running.stop(drain_s=5)


async def _slash(server: HttpServer, text: str, fake: FakeSlack) -> tuple[int, str]:
    body = form_body(slash_payload(text, response_url=fake.response_url()))
    headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
    url = f"http://127.0.0.1:{server.port}/slack/events"
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body.encode(), headers=headers) as response,
    ):
        return response.status, await response.text()


def _text(posts: list[dict[str, Any]]) -> str:
    return json.dumps([p["blocks"] for p in posts], ensure_ascii=False)


async def test_a_configured_scope_posts_one_report_over_both_repositories(
    server: HttpServer, fake: FakeSlack, rig: ScopeRig
) -> None:
    """``2026-03-10 scope:serving`` posts one parent and thread: the scope's name, each
    repository's items linked to their own repository, the bumps its filters leave out."""
    status, _ = await _slash(server, "2026-03-10 scope:serving", fake)
    assert status == 200
    await server.jobs.idle()
    parent, *thread = fake.posts
    assert parent["blocks"][0]["text"]["text"] == "Serving Development Report - 2026-03-10"
    assert thread and all(p["thread_ts"] == parent["_ts"] for p in thread)
    text = _text(fake.posts)
    for repo in (VLLM, SGLANG):
        assert f"https://github.com/{repo}/issues/1" in text
        assert rig.requests(repo) > 0
    assert "Bump torch" not in text and "bump flashinfer" not in text


async def test_several_repositories_in_repo_option(
    server: HttpServer, fake: FakeSlack, rig: ScopeRig
) -> None:
    """``repo:a/b,c/d`` posts one report over both, under both names, bumps included."""
    await _slash(server, f"2026-03-10 repo:{VLLM},{SGLANG}", fake)
    await server.jobs.idle()
    parent = fake.posts[0]
    assert parent["blocks"][0]["text"]["text"] == "vLLM + sglang Development Report - 2026-03-10"
    text = _text(fake.posts)
    assert "bump flashinfer" in text  # no filters: the bot's bump stays
    assert f"https://github.com/{VLLM}/issues/1" in text
    assert f"https://github.com/{SGLANG}/issues/1" in text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("today scope:nope", "unknown scope 'nope' (configured scopes: engines, serving)"),
        ("today repo:a/b,nope", "'nope' is not a repository"),
        (
            "today repo:" + ",".join(f"o/r{i}" for i in range(12)),
            "at most 10 repositories; 12 were named",
        ),
    ],
)
async def test_bad_subjects_are_told_and_nothing_is_fetched(
    server: HttpServer, fake: FakeSlack, rig: ScopeRig, text: str, said: str
) -> None:
    """An unknown scope lists the configured ones; a bad name and too many repositories say
    what is wrong; GitHub is not asked and nothing is posted in the channel."""
    status, body = await _slash(server, text, fake)
    assert status == 200
    await server.jobs.idle()
    shown = body + json.dumps(fake.responses)
    assert said in shown
    assert fake.posts == [] and rig.requests() == 0
