"""HTTP mode end to end: signed requests into the real bolt app, posts into the fake Web API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.grammar import DigestCommand, parse
from bot.commands.runner import ReportCore
from bot.slack.post import command_post
from bot.slack.run import HttpServer
from config.settings import LimitSettings
from digest.backends.sqlite.state import SQLiteState
from digest.errors import ConfigError
from digest.state.limiter import Limiter
from tests.bot.slack.conftest import NOW, SECRET, eventually, logged
from tests.fakes.slack import (
    FakeSlack,
    event_payload,
    form_body,
    mention,
    sign,
    slash_payload,
)
from tests.support.slack_app import serve_http, slack_app


@pytest.fixture
async def server(core: ReportCore, web_client: AsyncWebClient) -> AsyncIterator[HttpServer]:
    app = slack_app(core, web_client, signing_secret=SECRET, clock=lambda: NOW, pace_s=0)
    running = await serve_http(app)
    yield running
    await running.stop(drain_s=5)


async def _send(
    server: HttpServer, body: str, content_type: str, headers: dict[str, str]
) -> tuple[int, str]:
    url = f"http://127.0.0.1:{server.port}/slack/events"
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            url, data=body.encode(), headers={"Content-Type": content_type, **headers}
        ) as response,
    ):
        return response.status, await response.text()


async def _slash(server: HttpServer, text: str, fake: FakeSlack, **kw: Any) -> tuple[int, str]:
    body = form_body(slash_payload(text, response_url=fake.response_url(), **kw))
    return await _send(server, body, "application/x-www-form-urlencoded", sign(SECRET, body))


async def _event(
    server: HttpServer, payload: dict[str, Any], retry: int | None = None
) -> tuple[int, str]:
    body = json.dumps(payload)
    headers = sign(SECRET, body)
    if retry is not None:
        headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
    return await _send(server, body, "application/json", headers)


async def test_signed_slash_command_posts_a_threaded_digest(
    server: HttpServer, fake: FakeSlack
) -> None:
    """A signed /vllm-report is acked with "working on it", then posted as parent + thread."""
    status, text = await _slash(server, "2026-01-31", fake)
    assert status == 200
    assert json.loads(text) == {"response_type": "ephemeral", "text": messages.WORKING}
    await server.jobs.idle()
    await eventually(lambda: len(fake.posts) >= 2)
    parent, *replies = fake.posts
    assert parent["channel"] == "C0000001"
    assert parent["blocks"][0]["text"]["text"] == "vLLM Development Report - 2026-01-31"
    assert replies and all(r["thread_ts"] == parent["_ts"] for r in replies)
    assert fake.called("auth.test")


async def test_bad_signature_is_rejected_and_nothing_posted(
    server: HttpServer, fake: FakeSlack
) -> None:
    """A request with a wrong signature gets 401 and causes no Slack call at all."""
    body = form_body(slash_payload("today"))
    status, _ = await _send(
        server, body, "application/x-www-form-urlencoded", sign("not-the-secret", body)
    )
    assert status == 401
    status, _ = await _send(server, body, "application/x-www-form-urlencoded", {})
    assert status == 401
    await server.jobs.idle()
    assert fake.calls == [] and fake.responses == []


async def test_retried_event_is_answered_once(
    server: HttpServer, fake: FakeSlack, caplog_info: pytest.LogCaptureFixture
) -> None:
    """The same event_id delivered again with X-Slack-Retry-Num posts nothing more."""
    payload = event_payload(mention("2026-01-31", ts="1769839200.000100"), event_id="EvRETRY")
    for retry in (None, 1, 2):
        assert (await _event(server, payload, retry))[0] == 200
    await eventually(lambda: logged(caplog_info, "slack.delivery_duplicate") == 2)
    await server.jobs.idle()
    parents = [
        p
        for p in fake.posts
        if p["blocks"][0]["type"] == "header" and p["blocks"][0]["text"]["text"].startswith("vLLM")
    ]
    assert len(parents) == 1
    assert all(p["thread_ts"] == "1769839200.000100" for p in fake.posts)


async def test_not_in_channel_is_said_ephemerally(server: HttpServer, fake: FakeSlack) -> None:
    """When the bot may not post in the channel, the user is told how to invite it."""
    fake.fail("chat.postMessage", "not_in_channel", channel="CPRIVATE")
    await _slash(server, "2026-01-31", fake, channel="CPRIVATE")
    await fake.wait_until(lambda: len(fake.responses) == 1)
    assert fake.responses[0]["text"] == messages.NOT_IN_CHANNEL
    assert fake.responses[0]["response_type"] == "ephemeral"
    assert fake.posts == []


async def test_core_errors_use_the_shared_wording(server: HttpServer, fake: FakeSlack) -> None:
    """A window in the future is answered with the shared error wording, ephemerally."""
    await _slash(server, "2026-03-01", fake, trigger_id="trig-future")
    await fake.wait_until(lambda: len(fake.responses) == 1)
    text = fake.responses[0]["text"]
    assert text.startswith("That window doesn't work:") and "Traceback" not in text
    assert fake.posts == []


async def test_usage_errors_and_help_are_acked_directly(
    server: HttpServer, fake: FakeSlack
) -> None:
    """A command that does not parse, and help, are answered in the acknowledgement itself."""
    _, text = await _slash(server, "lang:fr today", fake, trigger_id="t-usage")
    assert json.loads(text)["text"].startswith("Sorry, I didn't understand that:")
    _, text = await _slash(server, "help", fake, trigger_id="t-help")
    assert json.loads(text)["text"] == messages.help_text("slack")
    await server.jobs.idle()
    assert fake.posts == []


async def test_slash_text_is_read_as_typed(server: HttpServer, fake: FakeSlack) -> None:
    """Slack's &amp; &lt; &gt; in a command's text are decoded once: a question reads as typed."""
    await _slash(server, "ask is ROCm &lt;6.2&gt; &amp; HIP supported?", fake, trigger_id="t-ent")
    await server.jobs.idle()
    question = fake.posts[0]["blocks"][0]["text"]["text"]
    assert question.startswith("> *is ROCm &lt;6.2&gt; &amp; HIP supported?*")


async def test_private_digest_goes_to_a_dm(server: HttpServer, fake: FakeSlack) -> None:
    """`private` opens a DM with the user and posts the whole digest there."""
    _, text = await _slash(server, "2026-01-31 private", fake, user="U0000042")
    assert json.loads(text)["text"] == messages.WORKING_PRIVATE
    await server.jobs.idle()
    assert fake.called("conversations.open")[0].args["users"] == "U0000042"
    assert fake.posts and {p["channel"] for p in fake.posts} == {"D0000042"}


async def test_unexpected_failure_says_internal_and_logs(
    core: ReportCore,
    web_client: AsyncWebClient,
    fake: FakeSlack,
    caplog_info: pytest.LogCaptureFixture,
) -> None:
    """An unexpected exception reaches the user as the generic message, and the log has it."""
    fake.fail("chat.postMessage", "invalid_blocks")
    app = slack_app(core, web_client, signing_secret=SECRET, clock=lambda: NOW, pace_s=0)
    running = await serve_http(app)
    try:
        await _slash(running, "2026-01-31", fake)
        await fake.wait_until(lambda: len(fake.responses) == 1)
    finally:
        await running.stop(drain_s=5)
    assert fake.responses[0]["text"] == messages.INTERNAL
    assert logged(caplog_info, "slack.job_failed") == 1
    assert "xoxb" not in caplog_info.text


async def test_http_mode_needs_a_signing_secret(
    core: ReportCore, web_client: AsyncWebClient
) -> None:
    """Without a signing secret the HTTP endpoint refuses to start."""
    app = slack_app(core, web_client, signing_secret=None, clock=lambda: NOW)
    with pytest.raises(ConfigError):
        await serve_http(app)


async def test_request_url_verification_is_answered(server: HttpServer) -> None:
    """Slack's signed ``url_verification`` (the "Verified" check of a request URL) gets its
    challenge back, so the HTTP-mode manifest's URL can be verified."""
    body = json.dumps({"type": "url_verification", "token": "t", "challenge": "c-4711"})
    status, text = await _send(server, body, "application/json", sign(SECRET, body))
    assert status == 200 and "c-4711" in text


@pytest.fixture
async def limited(core: ReportCore, web_client: AsyncWebClient) -> AsyncIterator[HttpServer]:
    """The HTTP endpoint with the default rate limits, counted in a SQLite state."""
    state = SQLiteState(":memory:", clock=lambda: NOW)
    limiter = Limiter(state, LimitSettings().rules(), lambda: NOW)
    app = slack_app(
        core, web_client, signing_secret=SECRET, clock=lambda: NOW, pace_s=0, limiter=limiter
    )
    running = await serve_http(app)
    yield running
    await running.stop(drain_s=5)
    await state.close()


def parse_digest(text: str) -> DigestCommand:
    command = parse(text)
    assert isinstance(command, DigestCommand)
    return command


async def test_a_burst_of_digests_is_limited_and_another_member_still_gets_theirs(
    limited: HttpServer, fake: FakeSlack, core: ReportCore
) -> None:
    """Twenty distinct digests from one member: ten are posted, ten refused in the
    acknowledgement, to that member only, with the limit and the time to try again; another
    member's digest then arrives in full."""
    days = [f"2026-01-{d:02d}" for d in range(1, 21)]
    acks = []
    for n, day in enumerate(days):
        body = form_body(
            slash_payload(day, trigger_id=f"burst-{n}", response_url=fake.response_url(f"b{n}"))
        )
        status, text = await _send(
            limited, body, "application/x-www-form-urlencoded", sign(SECRET, body)
        )
        assert status == 200
        acks.append(json.loads(text))
    await limited.jobs.idle()
    assert [a["text"] for a in acks[:10]] == [messages.WORKING] * 10
    refusals = acks[10:]
    assert all(r["response_type"] == "ephemeral" for r in refusals)
    assert {r["text"].split("; try again after")[0] for r in refusals} == {
        "You have reached your limit of digests (10 per 10 minutes)"
    }
    assert all("UTC (in about 1 min)" in r["text"] for r in refusals)
    assert fake.responses == []  # nothing else said to anyone
    parents = [p for p in fake.posts if "thread_ts" not in p]
    assert len(parents) == 10
    before = len(fake.posts)

    body = form_body(
        slash_payload(
            "2026-01-31", user="U0000002", trigger_id="other", response_url=fake.response_url("o")
        )
    )
    await _send(limited, body, "application/x-www-form-urlencoded", sign(SECRET, body))
    await limited.jobs.idle()
    theirs = fake.posts[before:]
    expected = command_post(await core.digest(parse_digest("2026-01-31")), site_url=None)
    assert len(theirs) == len(expected.messages)
    assert theirs[0]["blocks"][0]["text"]["text"] == "vLLM Development Report - 2026-01-31"
    assert all(p["thread_ts"] == theirs[0]["_ts"] for p in theirs[1:])
    assert not [r for r in fake.responses if r["_name"] == "o"]
