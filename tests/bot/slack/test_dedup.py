"""De-duplication of deliveries: in process, across replicas on Redis, and with Redis down."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta

import aiohttp
import pytest
from redis.asyncio import Redis
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.runner import ReportCore
from bot.slack.dedup import Deliveries, MemoryClaims
from digest.backends.redis.state import RedisState
from tests.bot.slack.conftest import NOW, SECRET, eventually, logged
from tests.fakes.slack import FakeSlack, event_payload, mention, sign
from tests.support.redis_server import Sandbox, free_port, sandbox
from tests.support.slack_app import serve_http, slack_app


@pytest.fixture
async def redis() -> AsyncIterator[Sandbox]:
    async with sandbox() as box:
        yield box


async def test_memory_claims_expire() -> None:
    """A key is refused while claimed and free again once its time-to-live is over."""
    now = [0.0]
    claims = MemoryClaims(monotonic=lambda: now[0])
    assert await claims.claim("k", timedelta(seconds=10)) is not None
    assert await claims.claim("k", timedelta(seconds=10)) is None
    now[0] = 10.5
    assert await claims.claim("k", timedelta(seconds=10)) is not None


async def test_deliveries_fall_back_in_process_when_redis_is_down() -> None:
    """With Redis unreachable, a repeated delivery is still recognised (in this process)."""
    client = Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=0.2)
    try:
        deliveries = Deliveries(RedisState(client, timeout=0.5, retry_after=0.1))
        assert await deliveries.first("event:Ev1") is True
        assert await deliveries.first("event:Ev1") is False
    finally:
        await client.aclose()


async def test_two_replicas_post_one_digest(
    core: ReportCore,
    web_client: AsyncWebClient,
    fake: FakeSlack,
    redis: Sandbox,
    caplog_info: pytest.LogCaptureFixture,
) -> None:
    """The same event delivered to two replicas sharing Redis is answered by only one."""
    state = RedisState(redis.client, prefix=redis.prefix)
    servers = []
    for _ in range(2):
        app = slack_app(
            core, web_client, signing_secret=SECRET, state=state, clock=lambda: NOW, pace_s=0
        )
        servers.append(await serve_http(app))
    body = json.dumps(event_payload(mention("2026-01-31"), event_id="EvShared"))
    try:
        async with aiohttp.ClientSession() as session:
            for server in servers:
                url = f"http://127.0.0.1:{server.port}/slack/events"
                headers = {"Content-Type": "application/json", **sign(SECRET, body)}
                async with session.post(url, data=body.encode(), headers=headers) as response:
                    assert response.status == 200
        await eventually(lambda: logged(caplog_info, "slack.delivery_duplicate") == 1)
        for server in servers:
            await server.jobs.idle()
    finally:
        for server in servers:
            await server.stop(drain_s=5)
    titles = [
        p["blocks"][0]["text"]["text"] for p in fake.posts if p["blocks"][0]["type"] == "header"
    ]
    assert titles.count("vLLM Development Report - 2026-01-31") == 1
