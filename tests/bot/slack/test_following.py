"""What may be followed, from Slack: signed requests into the real bolt app, GitHub's answers
from the fake GitHub, subscriptions kept in a real state (see ``bot/commands/following.py``)."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.buttons import ButtonSigner, DigestButtons
from bot.commands.defaults import DefaultsStore
from bot.commands.following import Caps
from bot.commands.runner import ReportCore
from bot.commands.subscriptions import ChannelSubscriptions
from bot.slack.run import HttpServer
from config.settings import load_config
from digest.github.allow_list import AllowList
from digest.models import Lang
from tests.bot.slack.conftest import NOW, SECRET
from tests.fakes.github import FakeGitHub
from tests.fakes.slack import (
    FakeSlack,
    block_actions_payload,
    event_payload,
    form_body,
    home_opened,
    sign,
    slash_payload,
)
from tests.support.following import Access, github_access, repo_requests
from tests.support.slack_app import serve_http, slack_app

KEY = "xoxb-the-bot-token"
ADMIN = "UADMIN01"
DM = "D0000001"


@asynccontextmanager
async def bot(
    core: ReportCore,
    web_client: AsyncWebClient,
    *,
    caps: Caps | None = None,
    allow: AllowList | None = None,
    repos: tuple[str, ...] = (),
    private: tuple[str, ...] = (),
) -> AsyncIterator[tuple[HttpServer, Access, FakeGitHub]]:
    """The app over ``core``, checked by an access over a fake GitHub holding ``repos``."""
    async with (
        FakeGitHub(clock=lambda: NOW) as gh,
        github_access(gh, lambda: NOW, allow=allow) as rig,
    ):
        for name in repos:
            gh.add_repo(name, private=name in private)
        rig.admit_in(core, caps)
        buttons = DigestButtons(ButtonSigner.from_secret(KEY), load_config(), lambda: NOW)
        app = slack_app(
            core,
            web_client,
            signing_secret=SECRET,
            clock=lambda: NOW,
            subscriptions=ChannelSubscriptions(rig.subscriptions, lambda: NOW),
            buttons=buttons,
            defaults=DefaultsStore(rig.state),
            directory=rig.subscriptions.all_subscriptions,
            pace_s=0,
        )
        server = await serve_http(app)
        try:
            yield server, rig, gh
        finally:
            await server.stop(drain_s=5)


async def _post(
    server: HttpServer, body: str, content_type: str = "application/x-www-form-urlencoded"
) -> str:
    headers = {"Content-Type": content_type, **sign(SECRET, body)}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{server.port}/slack/events", data=body.encode(), headers=headers
        ) as response,
    ):
        return await response.text()


_TRIGGERS = itertools.count()


async def _ack(server: HttpServer, text: str, *, channel: str = DM, user: str = ADMIN) -> str:
    trigger = f"t-{next(_TRIGGERS)}"
    body = form_body(slash_payload(text, channel=channel, user=user, trigger_id=trigger))
    acked: dict[str, Any] = json.loads(await _post(server, body))
    return str(acked["text"])


async def _stored(rig: Access) -> list[str]:
    return sorted(f"{s.channel} {s.repo}" for s in await rig.subscriptions.all_subscriptions())


async def test_25_subscribes_to_missing_repositories_in_a_dm_store_nothing(
    core: ReportCore, web_client: AsyncWebClient, fake: FakeSlack
) -> None:
    """In a DM, where the user manages their own subscriptions, 25 subscribes to repositories
    GitHub does not have each get a clear refusal, one request each, and nothing is stored;
    one in Chinese is refused in Chinese."""
    async with bot(core, web_client) as (server, rig, gh):
        for i in range(25):
            reply = await _ack(server, f"subscribe repo:nobody-{i}/does-not-exist-{i}")
            assert reply.startswith(f"I couldn't find nobody-{i}/does-not-exist-{i} on GitHub")
            assert reply.endswith("Nothing was stored.")
        zh = await _ack(server, "subscribe repo:nobody-0/does-not-exist-0 lang:zh")
        assert zh.startswith("在 GitHub 上找不到 nobody-0/does-not-exist-0") and "未保存" in zh
        assert await _stored(rig) == []
        assert repo_requests(gh) == 25  # the 26th was answered from the state
        assert fake.posts == []


async def test_caps_per_channel_and_per_workspace_hold(
    core: ReportCore, web_client: AsyncWebClient
) -> None:
    """Two a channel and three a workspace: the third in one channel and the fourth in the
    workspace are refused naming their cap; replacing a subscription still works."""
    repos = tuple(f"o/r{i}" for i in range(1, 6))
    caps = Caps(per_channel=2, per_workspace=3, total=100)
    async with bot(core, web_client, caps=caps, repos=repos) as (server, rig, _):
        assert (await _ack(server, "subscribe repo:o/r1")).startswith("Subscribed")
        assert (await _ack(server, "subscribe repo:o/r2")).startswith("Subscribed")
        third = await _ack(server, "subscribe repo:o/r3")
        assert third.startswith("This channel already has 2 subscriptions")
        assert "limit per channel (2)" in third
        assert (await _ack(server, "subscribe repo:o/r1 time:10:00")).startswith("Subscribed")
        other = await _ack(server, "subscribe repo:o/r3", channel="D0000002")
        assert other.startswith("Subscribed")
        fourth = await _ack(server, "subscribe repo:o/r4", channel="D0000003")
        assert "limit per workspace (3)" in fourth
        assert await _stored(rig) == ["D0000001 o/r1", "D0000001 o/r2", "D0000002 o/r3"]


async def test_the_total_cap_holds(core: ReportCore, web_client: AsyncWebClient) -> None:
    """With room for two subscriptions in all, a third anywhere is refused naming the cap."""
    caps = Caps(per_channel=5, per_workspace=5, total=2)
    async with bot(core, web_client, caps=caps, repos=("o/a", "o/b", "o/c")) as (server, rig, _):
        await _ack(server, "subscribe repo:o/a")
        await _ack(server, "subscribe repo:o/b", channel="D0000002")
        refused = await _ack(server, "subscribe repo:o/c", channel="D0000003")
        assert refused.startswith("This bot already has 2 subscriptions in all, its limit (2)")
        assert len(await _stored(rig)) == 2


async def test_a_private_repository_is_refused_unless_allow_listed(
    core: ReportCore, web_client: AsyncWebClient
) -> None:
    """A private repository is refused on subscribe; on the allow-list it is accepted."""
    async with bot(core, web_client, repos=("acme/secret",), private=("acme/secret",)) as (
        server,
        rig,
        _,
    ):
        reply = await _ack(server, "subscribe repo:acme/secret")
        assert reply.startswith("acme/secret is a private repository") and "allow-list" in reply
        assert await _stored(rig) == []
    listed = AllowList.of(["acme/*"])
    async with bot(
        core, web_client, allow=listed, repos=("acme/secret",), private=("acme/secret",)
    ) as (server, rig, _):
        assert (await _ack(server, "subscribe repo:acme/secret")).startswith("Subscribed")
        assert await _stored(rig) == ["D0000001 acme/secret"]


async def test_every_command_honours_the_allow_list(
    core: ReportCore, web_client: AsyncWebClient, fake: FakeSlack
) -> None:
    """Off the list, a digest, a question, a subscription, a channel setting and a button are
    each refused with words naming the list, and nothing is posted or stored; the default
    repository still answers."""
    allow = AllowList.of(["vllm-project/*"])
    said: Callable[[str], bool] = lambda text: (  # noqa: E731
        "other/repo is not on this bot's list of allowed repositories" in text
        and "vllm-project/*" in text
    )
    async with bot(core, web_client, allow=allow, repos=("other/repo",)) as (server, rig, gh):
        for i, command in enumerate(("today repo:other/repo", "ask repo:other/repo what's new?")):
            url = fake.response_url(f"r{i}")
            await _post(server, form_body(slash_payload(command, response_url=url, trigger_id=url)))
        assert said(await _ack(server, "subscribe repo:other/repo", channel="C0000001"))
        assert said(await _ack(server, "settings repo:other/repo", channel="C0000001"))
        value = ButtonSigner.from_secret(KEY).sign("2026-01-30", Lang.EN, "other/repo")
        assert value is not None
        click = block_actions_payload("vr_prev", value, response_url=fake.response_url("click"))
        await _post(server, urlencode({"payload": json.dumps(click)}))
        await server.jobs.idle()
        await fake.wait_until(lambda: len(fake.responses) == 3)
        assert all(said(r["text"]) for r in fake.responses), fake.responses
        assert fake.posts == [] and await _stored(rig) == [] and gh.requests == []
        await _post(server, form_body(slash_payload("2026-01-31", trigger_id="default")))
        await server.jobs.idle()
        assert any("2026-01-31" in p.get("text", "") for p in fake.posts)


async def test_the_listing_says_when_a_repository_is_not_followed_any_more(
    core: ReportCore, web_client: AsyncWebClient, fake: FakeSlack
) -> None:
    """After three syncs answered NotFound, `subscriptions` and the Home tab mark the
    repository's subscription, in its language (no next post on the Home tab); the others
    read as before."""
    async with bot(core, web_client, repos=("o/r1", "o/r2")) as (server, rig, _):
        await _ack(server, "subscribe repo:o/r1 lang:zh")
        await _ack(server, "subscribe repo:o/r2")
        for _ in range(3):
            await rig.access.missed("o/r1")
        listed = await _ack(server, "subscriptions")
        [gone] = [line for line in listed.splitlines() if "o/r1" in line]
        [kept] = [line for line in listed.splitlines() if "o/r2" in line]
        assert gone.endswith("in zh（找不到该仓库，已不再关注）")
        assert "不再关注" not in kept and "not followed" not in kept
        fake.members[DM] = {ADMIN}
        await _post(server, json.dumps(event_payload(home_opened(user=ADMIN))), "application/json")
        await fake.wait_until(lambda: bool(fake.called("views.publish")))
        home = json.dumps(fake.called("views.publish")[-1].args["view"], ensure_ascii=False)
        assert 'o/r1, daily at 00:00 (UTC) in zh（找不到该仓库，已不再关注）"' in home
        assert "o/r2, daily at 00:00 (UTC) in en. Next post: 2026-02-02 00:00 (UTC)." in home
