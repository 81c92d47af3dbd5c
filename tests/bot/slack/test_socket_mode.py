"""Socket Mode end to end: envelopes from a fake WebSocket server through the real SDK."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.grammar import AskCommand, DigestCommand
from bot.commands.runner import ReportCore
from bot.slack import run_socket_mode
from digest.builder import DigestRequest
from digest.models import Answer, Digest
from tests.bot.slack.conftest import HOSTILE_NUMBER, NOW, eventually, logged
from tests.fakes.slack import (
    FakeSlack,
    direct_message,
    event_payload,
    mention,
    slash_payload,
)
from tests.support.slack_app import SlackApp, slack_app


@pytest.fixture
async def app(
    core: ReportCore, web_client: AsyncWebClient, fake: FakeSlack
) -> AsyncIterator[SlackApp]:
    """The app connected to the fake over Socket Mode; stopped gracefully afterwards."""
    made = slack_app(core, web_client, signing_secret=None, clock=lambda: NOW, pace_s=0)
    stop = asyncio.Event()
    task = asyncio.create_task(
        run_socket_mode(made.app, fake.app_token, jobs=made.jobs, stop=stop, drain_s=5)
    )
    await fake.wait_connected()
    yield made
    stop.set()
    await asyncio.wait_for(task, 10)


def _slash_envelope(text: str, envelope_id: str, **kw: Any) -> dict[str, Any]:
    return {
        "envelope_id": envelope_id,
        "type": "slash_commands",
        "payload": slash_payload(text, **kw),
        "accepts_response_payload": True,
    }


def _event_envelope(payload: dict[str, Any], envelope_id: str, retry: int) -> dict[str, Any]:
    return {
        "envelope_id": envelope_id,
        "type": "events_api",
        "payload": payload,
        "accepts_response_payload": False,
        "retry_attempt": retry,
        "retry_reason": "timeout" if retry else "",
    }


def _texts(posts: list[dict[str, Any]]) -> str:
    out = []
    for post in posts:
        out.append(post["text"])
        for block in post.get("blocks", ()):
            text = block.get("text")
            if isinstance(text, dict):
                out.append(text["text"])
            out += [e["text"] for e in block.get("elements", ())]
    return "\n".join(out)


async def test_slash_command_is_acked_then_posted_as_a_thread(
    app: SlackApp, fake: FakeSlack
) -> None:
    """The envelope is acked with "working on it"; the digest follows as parent + replies."""
    await fake.send_envelope(_slash_envelope("2026-01-31", "env-slash-1"))
    await fake.wait_until(lambda: any(a.get("envelope_id") == "env-slash-1" for a in fake.acks))
    ack = next(a for a in fake.acks if a["envelope_id"] == "env-slash-1")
    assert ack["payload"] == {"response_type": "ephemeral", "text": messages.WORKING}

    await app.jobs.idle()
    await eventually(lambda: len(fake.posts) > 2)
    parent, *replies = fake.posts
    assert parent["blocks"][0]["text"]["text"] == "vLLM Development Report - 2026-01-31"
    assert "thread_ts" not in parent
    assert len(replies) >= 7 and all(r["thread_ts"] == parent["_ts"] for r in replies)
    assert replies[-1]["text"].startswith("📋 Appendix")

    text = _texts(fake.posts)
    shown = f"/pull/{HOSTILE_NUMBER}|#{HOSTILE_NUMBER} &lt;!channel&gt; urgent &lt;@U0123ABCD&gt;"
    assert shown in text
    for forbidden in ("<!channel>", "<@U0123ABCD>", "<https://evil", "@here", "@everyone"):
        assert forbidden not in text


async def test_mention_is_answered_in_its_thread(app: SlackApp, fake: FakeSlack) -> None:
    """A mention asking a question gets the topic's answer in the mention's thread."""
    payload = event_payload(
        mention("what's new in ROCm?", ts="1769839200.000300"), event_id="EvMention1"
    )
    await fake.send_envelope(_event_envelope(payload, "env-ev-1", 0))
    await fake.wait_until(lambda: any(a.get("envelope_id") == "env-ev-1" for a in fake.acks))
    await eventually(lambda: len(fake.posts) >= 1 and not len(app.jobs))
    assert fake.posts and all(p["thread_ts"] == "1769839200.000300" for p in fake.posts)
    assert all(p["channel"] == "C0000001" for p in fake.posts)
    assert "ROCm" in _texts(fake.posts)


async def test_three_deliveries_of_one_event_post_one_digest(
    app: SlackApp, fake: FakeSlack, caplog_info: pytest.LogCaptureFixture
) -> None:
    """The first delivery (retry_attempt 0) and two retries of one event_id post one digest."""
    payload = event_payload(mention("2026-01-31", ts="1769839200.000400"), event_id="EvTriple")
    for attempt in range(3):
        await fake.send_envelope(_event_envelope(payload, f"env-triple-{attempt}", attempt))
    await fake.wait_until(
        lambda: sum(a["envelope_id"].startswith("env-triple") for a in fake.acks) == 3
    )
    await eventually(lambda: logged(caplog_info, "slack.delivery_duplicate") == 2)
    await app.jobs.idle()
    headers = [
        p
        for p in fake.posts
        if p["blocks"][0]["type"] == "header"
        and p["blocks"][0]["text"]["text"].startswith("vLLM Development Report")
    ]
    assert len(headers) == 1


async def test_repeated_slash_envelope_posts_once(
    app: SlackApp, fake: FakeSlack, caplog_info: pytest.LogCaptureFixture
) -> None:
    """A slash command envelope delivered twice (same trigger_id) is acted on once."""
    for envelope_id in ("env-rep-1", "env-rep-2"):
        await fake.send_envelope(_slash_envelope("2026-01-31", envelope_id, trigger_id="trig-rep"))
    await eventually(lambda: logged(caplog_info, "slack.delivery_duplicate") == 1)
    await app.jobs.idle()
    headers = [
        p
        for p in fake.posts
        if p["blocks"][0]["type"] == "header"
        and p["blocks"][0]["text"]["text"].startswith("vLLM Development Report")
    ]
    assert len(headers) == 1


async def test_direct_message_is_answered_in_a_thread(app: SlackApp, fake: FakeSlack) -> None:
    """A DM with a command is answered in the DM, in the message's thread."""
    payload = event_payload(direct_message("help", ts="1769839200.000500"), event_id="EvDM1")
    await fake.send_envelope(_event_envelope(payload, "env-dm-1", 0))
    await fake.wait_until(lambda: len(fake.posts) == 1)
    post = fake.posts[0]
    assert post["channel"] == "D0000001" and post["thread_ts"] == "1769839200.000500"
    assert post["text"] == messages.help_text("slack")


async def test_bare_mention_gets_help_in_its_thread(app: SlackApp, fake: FakeSlack) -> None:
    """A mention with no words is answered with the help, as on Discord, and builds nothing."""
    payload = event_payload(mention("", ts="1769839200.000900"), event_id="EvBare")
    await fake.send_envelope(_event_envelope(payload, "env-bare", 0))
    await fake.wait_until(lambda: len(fake.posts) == 1)
    await app.jobs.idle()
    assert len(fake.posts) == 1
    assert fake.posts[0]["text"] == messages.help_text("slack")
    assert fake.posts[0]["thread_ts"] == "1769839200.000900"


async def test_bot_messages_are_ignored(
    app: SlackApp, fake: FakeSlack, caplog_info: pytest.LogCaptureFixture
) -> None:
    """The bot's own DM messages (bot_id, subtypes) never trigger an answer."""
    own = direct_message("today", ts="1769839200.000600") | {"bot_id": "BBOT0001"}
    edited = direct_message("today", ts="1769839200.000700") | {"subtype": "message_changed"}
    for n, event in enumerate((own, edited)):
        await fake.send_envelope(
            _event_envelope(event_payload(event, event_id=f"EvBot{n}"), f"env-bot-{n}", 0)
        )
    await fake.wait_until(
        lambda: sum(a["envelope_id"].startswith("env-bot") for a in fake.acks) == 2
    )
    await fake.send_envelope(
        _event_envelope(
            event_payload(direct_message("help", ts="1769839200.000800"), event_id="EvAfter"),
            "env-after",
            0,
        )
    )
    await fake.wait_until(lambda: len(fake.posts) == 1)
    assert fake.posts[0]["thread_ts"] == "1769839200.000800"


class _GatedCore:
    """The real core, holding every digest until ``gate`` opens."""

    def __init__(self, core: ReportCore) -> None:
        self.config = core.config
        self.default_lang = core.default_lang
        self.site_url = core.site_url
        self._core = core
        self.gate = asyncio.Event()
        self.started = asyncio.Event()

    def request_for(self, command: DigestCommand) -> DigestRequest:
        return self._core.request_for(command)

    async def build(self, request: DigestRequest) -> Digest:
        self.started.set()
        await self.gate.wait()
        return await self._core.build(request)

    async def ask(self, command: AskCommand) -> Answer:
        return await self._core.ask(command)


async def test_stop_lets_a_post_in_flight_finish(
    core: ReportCore, web_client: AsyncWebClient, fake: FakeSlack
) -> None:
    """Stopping while a digest is being built closes the socket but still posts the digest."""
    gated = _GatedCore(core)
    made = slack_app(gated, web_client, signing_secret=None, clock=lambda: NOW, pace_s=0)
    stop = asyncio.Event()
    task = asyncio.create_task(
        run_socket_mode(made.app, fake.app_token, jobs=made.jobs, stop=stop, drain_s=5)
    )
    await fake.send_envelope(_slash_envelope("2026-01-31", "env-stop-1"))
    await asyncio.wait_for(gated.started.wait(), 5)
    stop.set()
    await asyncio.sleep(0)
    assert not task.done()
    gated.gate.set()
    await asyncio.wait_for(task, 10)
    assert fake.posts and fake.posts[0]["blocks"][0]["text"]["text"].startswith("vLLM")
    assert all(p.get("thread_ts") == fake.posts[0]["_ts"] for p in fake.posts[1:])


async def test_slow_build_is_acked_at_once(
    core: ReportCore, web_client: AsyncWebClient, fake: FakeSlack
) -> None:
    """The ack ("working on it") goes back while the digest is still building; it posts later."""
    gated = _GatedCore(core)
    made = slack_app(gated, web_client, signing_secret=None, clock=lambda: NOW, pace_s=0)
    stop = asyncio.Event()
    task = asyncio.create_task(
        run_socket_mode(made.app, fake.app_token, jobs=made.jobs, stop=stop, drain_s=5)
    )
    try:
        await fake.send_envelope(_slash_envelope("2026-01-31", "env-slow-1"))
        await asyncio.wait_for(gated.started.wait(), 5)
        await fake.wait_until(lambda: any(a["envelope_id"] == "env-slow-1" for a in fake.acks))
        assert fake.acks[-1]["payload"]["text"] == messages.WORKING and fake.posts == []
        gated.gate.set()
        await made.jobs.idle()
        assert fake.posts[0]["blocks"][0]["text"]["text"].startswith("vLLM Development Report")
    finally:
        gated.gate.set()
        stop.set()
        await asyncio.wait_for(task, 10)
