"""The Slack Home tab and its "Subscribe a channel" modal, through bolt against the fake."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.runner import ReportCore
from bot.slack.home import MAX_LISTED
from bot.slack.run import HttpServer
from digest.schedule.subscription import Subscription
from tests.bot.slack.conftest import NOW, SECRET
from tests.bot.slack.test_managers import ListStore
from tests.fakes.slack import (
    FakeSlack,
    block_actions_payload,
    event_payload,
    home_opened,
    sign,
    view_submission_payload,
)
from tests.support.slack_app import serve_http, slack_app


@pytest.fixture
def store() -> ListStore:
    return ListStore()


@pytest.fixture
async def server(
    core: ReportCore, web_client: AsyncWebClient, store: ListStore
) -> AsyncIterator[HttpServer]:
    async def directory() -> Sequence[Subscription]:
        return list(store.items)

    app = slack_app(
        core,
        web_client,
        signing_secret=SECRET,
        clock=lambda: NOW,
        subscriptions=store,
        directory=directory,
        pace_s=0,
    )
    running = await serve_http(app)
    yield running
    await running.stop(drain_s=5)


async def _post(server: HttpServer, body: str, content_type: str) -> tuple[int, str]:
    headers = {"Content-Type": content_type, **sign(SECRET, body)}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{server.port}/slack/events", data=body.encode(), headers=headers
        ) as response,
    ):
        return response.status, await response.text()


async def _interaction(server: HttpServer, payload: dict[str, Any]) -> tuple[int, str]:
    return await _post(
        server, urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
    )


async def _open_home(server: HttpServer, fake: FakeSlack, user: str = "U0000001") -> dict[str, Any]:
    before = len(fake.called("views.publish"))
    await _post(server, json.dumps(event_payload(home_opened(user=user))), "application/json")
    await fake.wait_until(lambda: len(fake.called("views.publish")) > before)
    call = fake.called("views.publish")[-1]
    assert call.args["user_id"] == user
    view: dict[str, Any] = call.args["view"]
    return view


def _texts(view: dict[str, Any]) -> str:
    return json.dumps(view["blocks"], ensure_ascii=False)


async def test_home_without_subscriptions_offers_the_subscribe_button(
    server: HttpServer, fake: FakeSlack
) -> None:
    """A workspace with no subscription: the Home tab says so, lists the latest report days and
    offers "Subscribe a channel"."""
    view = await _open_home(server, fake)
    assert view["type"] == "home" and len(view["blocks"]) <= 100
    text = _texts(view)
    assert "No channel has a scheduled digest yet" in text
    assert "Subscribe a channel" in text
    assert "`/vllm-report 2026-01-31`" in text  # the latest complete report day at NOW


async def test_home_lists_each_subscription_with_schedule_language_and_next_post(
    server: HttpServer, fake: FakeSlack, store: ListStore
) -> None:
    """Every Slack subscription of the viewer's channels: channel, schedule, language, next
    post."""
    fake.members.update({"C0000001": {"U0000001"}, "C0000002": {"U0000001"}})
    store.items = [
        Subscription("slack", "C0000001", "vllm-project/vllm", "09:00", "Europe/Berlin", "zh"),
        Subscription(
            "slack", "C0000002", "sgl-project/sglang", "08:00", "UTC", cadence="weekly", weekday=4
        ),
    ]
    text = _texts(await _open_home(server, fake))
    assert (
        "• <#C0000001>: vllm-project/vllm, daily at 09:00 (Europe/Berlin) in zh. "
        "Next post: 2026-02-01 09:00 (UTC+1)."
    ) in text
    assert "<#C0000002>: sgl-project/sglang, weekly on Friday at 08:00" in text
    assert "No channel has" not in text


async def test_home_lists_only_the_channels_the_viewer_is_in(
    server: HttpServer, fake: FakeSlack, store: ListStore
) -> None:
    """A private channel and another member's DM are not shown to whoever is not in them; the
    viewer's own DM is, over more than one page of ``users.conversations``."""
    store.items = [
        Subscription("slack", "C0000001", "vllm-project/vllm", "09:00", "UTC"),
        Subscription("slack", "GPRIVATE1", "vllm-project/vllm", "09:00", "UTC"),
        Subscription("slack", "D0OTHER01", "vllm-project/vllm", "09:00", "UTC"),
        Subscription("slack", "D0VIEWER1", "vllm-project/vllm", "10:00", "UTC"),
    ]
    fake.members.update(
        {
            "C0000001": {"U0000001", "U0000002"},
            "GPRIVATE1": {"U0000002"},
            "D0OTHER01": {"U0000002"},
            "D0VIEWER1": {"U0000001"},
            **{f"C{n:08d}X": {"U0000001"} for n in range(250)},  # past one page of 200
        }
    )
    text = _texts(await _open_home(server, fake))
    assert "<#C0000001>" in text and "<#D0VIEWER1>" in text
    assert "GPRIVATE1" not in text and "D0OTHER01" not in text
    pages = fake.called("users.conversations")
    assert len(pages) == 2 and {c.args["user"] for c in pages} == {"U0000001"}


async def test_a_crowded_workspace_stays_within_the_home_tabs_limits(
    server: HttpServer, fake: FakeSlack, store: ListStore
) -> None:
    """More subscriptions than fit are counted, not listed; the view stays under 100 blocks."""
    store.items = [
        Subscription("slack", f"C{n:08d}", "vllm-project/vllm", "09:00", "UTC")
        for n in range(MAX_LISTED + 30)
    ]
    fake.members.update({s.channel: {"U0000001"} for s in store.items})
    view = await _open_home(server, fake)
    assert len(view["blocks"]) <= 100
    assert "…and 30 more" in _texts(view)


async def test_the_modal_subscribes_a_channel_as_the_command_does(
    server: HttpServer, fake: FakeSlack, store: ListStore
) -> None:
    """The button opens the modal (time zone prefilled from the user's profile); an admin's
    submission stores the subscription, announces it in the channel and refreshes Home."""
    fake.people["UADMIN01"] = {"tz": "Europe/Berlin"}
    fake.members["C0000001"] = {"UADMIN01"}
    status, _ = await _interaction(
        server,
        block_actions_payload(
            "vr_home_subscribe", "", user="UADMIN01", container="view", trigger_id="trig-home"
        ),
    )
    assert status == 200
    await fake.wait_until(lambda: bool(fake.called("views.open")))
    opened = fake.called("views.open")[0].args
    assert opened["trigger_id"] == "trig-home"
    tz_block = next(b for b in opened["view"]["blocks"] if b["block_id"] == "tz")
    assert tz_block["element"]["initial_value"] == "Europe/Berlin"

    values = {
        "channel": {"value": {"type": "conversations_select", "selected_conversation": "C0000001"}},
        "schedule": {"value": {"type": "static_select", "selected_option": {"value": "weekly"}}},
        "day": {"value": {"type": "static_select", "selected_option": {"value": "mon"}}},
        "time": {"value": {"type": "timepicker", "selected_time": "09:00"}},
        "tz": {"value": {"type": "plain_text_input", "value": None}},
        "lang": {"value": {"type": "static_select", "selected_option": {"value": "zh"}}},
        "topics": {"value": {"type": "plain_text_input", "value": "rocm"}},
    }
    status, text = await _interaction(
        server, view_submission_payload("vr_subscribe", values, user="UADMIN01")
    )
    assert status == 200 and text == ""  # the modal closes
    [made] = store.items
    assert (made.channel, made.cadence, made.weekday, made.time, made.timezone, made.lang) == (
        "C0000001",
        "weekly",
        0,
        "09:00",
        "Europe/Berlin",
        "zh",
    )
    assert made.topics == ("rocm",)
    await server.jobs.idle()
    [announced] = fake.posts
    assert announced["channel"] == "C0000001"
    assert announced["text"].startswith("Subscribed: a vllm-project/vllm digest in zh, weekly")
    assert "<#C0000001>" in json.dumps(fake.called("views.publish")[-1].args["view"])


async def test_the_modal_refuses_a_member_and_a_bad_zone_inside_the_modal(
    server: HttpServer, fake: FakeSlack, store: ListStore
) -> None:
    """A member who manages nothing, or an unknown zone, gets the reason in the modal; nothing
    is stored."""
    values = {
        "channel": {"value": {"type": "conversations_select", "selected_conversation": "C0000001"}},
        "schedule": {"value": {"type": "static_select", "selected_option": {"value": "daily"}}},
        "lang": {"value": {"type": "static_select", "selected_option": {"value": "en"}}},
    }
    _, text = await _interaction(server, view_submission_payload("vr_subscribe", values))
    answer = json.loads(text)
    assert answer["response_action"] == "errors"
    assert answer["errors"]["channel"].startswith("Only channel managers")
    bad = {**values, "tz": {"value": {"type": "plain_text_input", "value": "Mars/Olympus"}}}
    _, text = await _interaction(
        server, view_submission_payload("vr_subscribe", bad, user="UADMIN01")
    )
    assert "Mars/Olympus" in json.loads(text)["errors"]["channel"]
    assert store.items == []
