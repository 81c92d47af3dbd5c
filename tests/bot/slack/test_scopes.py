"""Chat commands over several repositories and configured scopes: typed into the fake Slack's
slash command, built against the fake GitHub serving two repositories that share numbers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.buttons import ButtonSigner, DigestButtons
from bot.commands.defaults import DefaultsStore
from bot.slack.run import HttpServer
from digest.backends.sqlite.state import SQLiteState
from digest.models import Lang
from tests.bot.slack.conftest import SECRET
from tests.fakes.slack import FakeSlack, block_actions_payload, form_body, sign, slash_payload
from tests.support.scope_core import scope_config, scope_core
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


@pytest.fixture
async def buttoned(rig: ScopeRig, web_client: AsyncWebClient) -> AsyncIterator[HttpServer]:
    """The app with digest buttons, its channel defaults (and ad hoc lists) in SQLite."""
    state = SQLiteState(":memory:", clock=rig.clock)
    config = scope_config()
    buttons = DigestButtons(ButtonSigner.from_secret("xoxb-key"), config, lambda: NOW)
    app = slack_app(
        scope_core(rig, config),
        web_client,
        signing_secret=SECRET,
        clock=lambda: NOW,
        pace_s=0,
        buttons=buttons,
        defaults=DefaultsStore(state),
    )
    running = await serve_http(app)
    yield running
    await running.stop(drain_s=5)
    await state.close()


async def _click(server: HttpServer, action: str, value: str, *, message: str = "1.1") -> None:
    payload = block_actions_payload(action, value, message_ts=message)
    body = urlencode({"payload": json.dumps(payload)})
    headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
    url = f"http://127.0.0.1:{server.port}/slack/events"
    async with aiohttp.ClientSession() as session, session.post(url, data=body, headers=headers):
        pass
    await server.jobs.idle()


def _values(parent: dict[str, Any]) -> dict[str, str]:
    [actions] = [b for b in parent["blocks"] if b["type"] == "actions"]
    return {e["action_id"]: e.get("value", "") for e in actions["elements"]}


@pytest.mark.parametrize(
    ("subject", "title"),
    [
        ("scope:serving", "Serving 开发动态报告 - 2026-03-10"),
        (f"repo:{VLLM},{SGLANG}", "vLLM + sglang 开发动态报告 - 2026-03-10"),
    ],
)
async def test_a_scopes_buttons_refer_to_it_and_click_through(
    buttoned: HttpServer, fake: FakeSlack, subject: str, title: str
) -> None:
    """A scope's buttons carry a short signed reference (never the list of repositories),
    within 100 characters; "中文" posts the same scope's day in Chinese, both repositories'
    items linked to their own repository."""
    await _slash(buttoned, f"2026-03-10 {subject}", fake)
    await buttoned.jobs.idle()
    [parent] = [p for p in fake.posts if "thread_ts" not in p]
    values = _values(parent)
    assert set(values) == {"vr_prev", "vr_next", "vr_lang"}
    for value in values.values():
        assert len(value) <= 100 and VLLM not in value and SGLANG not in value
    await _click(buttoned, "vr_lang", values["vr_lang"])
    parents = [p for p in fake.posts if "thread_ts" not in p]
    assert len(parents) == 2
    assert parents[1]["blocks"][0]["text"]["text"] == title
    chinese = _text([p for p in fake.posts if p.get("thread_ts") == parents[1]["_ts"]])
    assert f"https://github.com/{VLLM}/issues/1" in chinese
    assert f"https://github.com/{SGLANG}/issues/1" in chinese


async def test_an_edited_or_unknown_scope_reference_is_refused(
    buttoned: HttpServer, fake: FakeSlack, rig: ScopeRig
) -> None:
    """A reference nobody stored, signed or not, posts nothing and fetches nothing."""
    signer = ButtonSigner.from_secret("xoxb-key")
    forged = "vr1|2026-03-10|en|~0123456789|" + "0" * 16
    stale = signer.sign("2026-03-10", Lang.EN, "~0123456789")
    assert stale is not None
    for n, value in enumerate((forged, stale)):
        await _click(buttoned, "vr_prev", value, message=f"1.{n}")
    assert fake.posts == [] and rig.requests() == 0
    told = json.dumps([c.args for c in fake.calls if c.method == "chat.postEphemeral"])
    assert messages.BUTTON_FORGED in told and messages.BUTTON_STALE in told


async def test_a_question_across_a_scope_posts_its_topic_across_the_scope(
    server: HttpServer, fake: FakeSlack, rig: ScopeRig
) -> None:
    """ "what's new in ROCm across serving?" (serving being a configured scope) posts the ROCm
    report of the scope: the ROCm items of both repositories, each linked to its own."""
    await _slash(server, "what's new in ROCm across serving?", fake)
    await server.jobs.idle()
    parent = next(p for p in fake.posts if "thread_ts" not in p)
    assert parent["blocks"][0]["text"]["text"].startswith("Serving ")
    text = _text(fake.posts)
    assert "MI300X crash in paged attention" in text and "ROCm build fails on gfx942" in text
    assert f"https://github.com/{VLLM}/issues/1" in text
    assert f"https://github.com/{SGLANG}/issues/1" in text
