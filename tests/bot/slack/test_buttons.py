"""Buttons on a digest's parent in Slack: clicked through bolt's HTTP mode against the fake."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.buttons import ButtonSigner, DigestButtons
from bot.commands.runner import ReportCore
from bot.slack.limits import violations
from bot.slack.run import HttpServer
from config.settings import load_config
from digest.models import Digest
from tests.bot.slack.conftest import NOW, SECRET
from tests.fakes.slack import FakeSlack, block_actions_payload, form_body, sign, slash_payload
from tests.support.slack_app import serve_http, slack_app

KEY = "xoxb-the-bot-token"
PAGES = "https://reports.example.org"


def _page(digest: Digest) -> str:
    return f"{PAGES}/{digest.window.label}.{digest.lang}.html"


Start = Callable[..., Any]


@pytest.fixture
async def start(core: ReportCore, web_client: AsyncWebClient) -> AsyncIterator[Callable[[], Any]]:
    """Start an app (again after a "restart"): buttons signed with the bot token's key."""
    running: list[HttpServer] = []

    async def make() -> HttpServer:
        buttons = DigestButtons(
            ButtonSigner.from_secret(KEY), load_config(), lambda: NOW, page_url=_page
        )
        app = slack_app(
            core, web_client, signing_secret=SECRET, clock=lambda: NOW, buttons=buttons, pace_s=0
        )
        server = await serve_http(app)
        running.append(server)
        return server

    yield make
    for server in running:
        await server.stop(drain_s=5)


async def _post(server: HttpServer, body: str) -> tuple[int, str, float]:
    headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
    began = time.monotonic()
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{server.port}/slack/events", data=body.encode(), headers=headers
        ) as response,
    ):
        return response.status, await response.text(), time.monotonic() - began


async def _parents(server: HttpServer, fake: FakeSlack) -> list[dict[str, Any]]:
    await server.jobs.idle()
    return [p for p in fake.posts if "thread_ts" not in p]


def _buttons(parent: dict[str, Any]) -> dict[str, dict[str, Any]]:
    [actions] = [b for b in parent["blocks"] if b["type"] == "actions"]
    return {e["action_id"]: e for e in actions["elements"]}


async def _click(server: HttpServer, action: str, value: str, *, response_url: str) -> float:
    payload = block_actions_payload(action, value, response_url=response_url)
    status, text, took = await _post(server, urlencode({"payload": json.dumps(payload)}))
    assert status == 200 and text == ""
    return took


async def test_previous_day_posts_the_previous_days_digest_the_same_way(
    start: Callable[[], Any], fake: FakeSlack
) -> None:
    """The parent carries previous day, next day, other language and web page; clicking
    "previous day" is acknowledged at once and posts 2026-01-30's digest as a new parent and
    thread in the channel, with buttons of its own, within Slack's limits."""
    server = await start()
    await _post(server, form_body(slash_payload("2026-01-31")))
    [first] = await _parents(server, fake)
    buttons = _buttons(first)
    assert set(buttons) == {"vr_prev", "vr_next", "vr_lang", "vr_web"}
    assert buttons["vr_web"]["url"] == f"{PAGES}/2026-01-31.en.html"
    assert buttons["vr_lang"]["text"]["text"] == "中文"
    assert violations(first) == []

    took = await _click(server, "vr_prev", buttons["vr_prev"]["value"], response_url="")
    assert took < 3
    parents = await _parents(server, fake)
    assert len(parents) == 2
    second = parents[1]
    assert "2026-01-30" in second["text"] and second["channel"] == "C0000001"
    assert any(p.get("thread_ts") == second["_ts"] for p in fake.posts)  # its sections
    assert set(_buttons(second)) == {"vr_prev", "vr_next", "vr_lang", "vr_web"}
    assert violations(second) == []


async def test_the_language_button_answers_in_the_other_language(
    start: Callable[[], Any], fake: FakeSlack
) -> None:
    """ "中文" on an English digest posts the same day in Chinese."""
    server = await start()
    await _post(server, form_body(slash_payload("2026-01-31")))
    [first] = await _parents(server, fake)
    await _click(server, "vr_lang", _buttons(first)["vr_lang"]["value"], response_url="")
    parents = await _parents(server, fake)
    assert "开发动态报告 - 2026-01-31" in json.dumps(parents[1], ensure_ascii=False)


async def test_a_button_still_works_after_a_restart(
    start: Callable[[], Any], fake: FakeSlack
) -> None:
    """A value signed before a restart is accepted by the new process (the key is the token's)."""
    before = await start()
    await _post(before, form_body(slash_payload("2026-01-31")))
    [first] = await _parents(before, fake)
    after = await start()
    await _click(after, "vr_prev", _buttons(first)["vr_prev"]["value"], response_url="")
    assert len(await _parents(after, fake)) == 2


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("vr1|2026-01-30|en|vllm-project/vllm|0000000000000000", "was not made by this bot"),
        ("vr1|2026-01-30|en|evil/repo|" + "f" * 16, "was not made by this bot"),
        ("vr0|2026-01-30|en|vllm-project/vllm", "older version of the bot"),
    ],
)
async def test_a_forged_or_stale_button_is_refused_clearly(
    start: Callable[[], Any], fake: FakeSlack, value: str, said: str
) -> None:
    """An edited or foreign value posts nothing and tells only the clicker why."""
    server = await start()
    await _click(server, "vr_prev", value, response_url=fake.response_url("r9"))
    assert await _parents(server, fake) == []
    await fake.wait_until(lambda: bool(fake.responses))
    [told] = fake.responses
    assert told["response_type"] == "ephemeral" and said in told["text"]


def test_next_day_is_disabled_while_it_has_not_begun() -> None:
    """At 04:00 UTC on 1 February the report day 2026-02-02 (from 03:21 UTC on the 2nd) is still
    to come: its button is disabled (Slack cannot show a disabled button, so it leaves it out)."""
    from dataclasses import replace

    from bot.commands.buttons import digest_buttons
    from bot.slack.render import SlackPost, with_buttons
    from digest.models import Counts, Window
    from digest.windows import parse_window

    window = parse_window("2026-02-01", now=NOW, timezone="Asia/Shanghai", day_start="11:21")
    digest = Digest(
        "vllm-project/vllm",
        replace(window, label="2026-02-01"),
        "en",
        Counts(0, 0, 0, 0, 0),
        (),
        NOW,
        None,
        "https://github.com/vllm-project/vllm",
    )
    assert isinstance(window, Window)
    found = digest_buttons(digest, ButtonSigner(b"k"), now=NOW, day_start="11:21")
    assert [(b.action, b.disabled) for b in found] == [
        ("prev", False),
        ("next", True),
        ("lang", False),
    ]
    post = with_buttons(SlackPost({"text": "t", "blocks": []}), found)
    assert [e["action_id"] for e in post.parent["blocks"][0]["elements"]] == ["vr_prev", "vr_lang"]
    assert all(len(b.value or "") <= 100 for b in found)  # Discord's custom_id limit too
