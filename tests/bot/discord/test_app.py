"""The Discord app through the real discord.py: login, the commands it registers, autocomplete."""

from __future__ import annotations

from bot.commands.runner import ReportCore
from bot.discord import ReportClient
from tests.bot.discord.conftest import StartBot
from tests.fakes.discord import APP_ID, MANAGE_CHANNELS, TOKEN, FakeDiscord
from tests.support.discord_helpers import CALLBACK

MESSAGE_CONTENT_INTENT = 1 << 15
PRIVILEGED = MESSAGE_CONTENT_INTENT | (1 << 1) | (1 << 8)


async def test_login_syncs_commands_without_privileged_intents(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """Login identifies without privileged intents and registers the typed commands."""
    assert fake.identify is not None
    assert fake.identify["token"] == TOKEN
    assert fake.identify["intents"] & PRIVILEGED == 0
    assert fake.gateway_queries[0]["v"] == "10"
    synced = fake.find("PUT", rf"applications/{APP_ID}/commands")[0].body
    names = {c["name"] for c in synced}
    assert names == {
        "vllm-report",
        "vllm-ask",
        "vllm-subscribe",
        "vllm-unsubscribe",
        "vllm-subscriptions",
        "vllm-settings",
        "vllm-help",
    }
    report = next(c for c in synced if c["name"] == "vllm-report")
    options = {o["name"]: o for o in report["options"]}
    assert options["window"]["autocomplete"] is True
    assert options["topic"]["autocomplete"] is True
    assert options["repository"]["autocomplete"] is True
    assert {c["value"] for c in options["language"]["choices"]} == {"zh", "en"}
    ask = next(c for c in synced if c["name"] == "vllm-ask")
    assert ask["options"][0]["name"] == "question" and ask["options"][0]["max_length"] == 500
    managed = {c["name"]: c.get("default_member_permissions") for c in synced}
    assert int(managed["vllm-subscribe"]) == int(managed["vllm-unsubscribe"]) == MANAGE_CHANNELS
    subscribe = next(c for c in synced if c["name"] == "vllm-subscribe")
    sub_options = {o["name"]: o for o in subscribe["options"]}
    assert {c["value"] for c in sub_options["schedule"]["choices"]} == {
        "daily",
        "weekdays",
        "weekly",
    }
    assert [c["value"] for c in sub_options["day"]["choices"]][:2] == ["mon", "tue"]
    assert managed["vllm-report"] is None and managed["vllm-ask"] is None


async def test_heartbeats_are_acknowledged_and_the_session_holds(
    start_bot: StartBot, fake: FakeDiscord, core: ReportCore
) -> None:
    """The client heartbeats at HELLO's interval, reads each ACK, and never reconnects."""
    fake.heartbeat_interval_ms = 40
    client = await start_bot(core, heartbeat_timeout=0.3)
    await fake.wait_for(lambda _: fake.heartbeats >= 8)
    assert len(fake.gateway_queries) == 1  # a missed ACK would have closed and reconnected
    assert client.latency < 1.0  # measured from an ACK


async def test_window_autocomplete_offers_relative_windows_and_recent_days(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """Autocomplete of window suggests today, week, Nd and the last complete local days."""
    await fake.command("vllm-report", {"window": ""}, autocomplete="window")
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    callback = fake.find("POST", CALLBACK)[0].body
    assert callback["type"] == 8
    values = [c["value"] for c in callback["data"]["choices"]]
    assert values[:6] == ["today", "yesterday", "week", "3d", "7d", "14d"]
    assert values[6:9] == ["2026-01-31", "2026-01-30", "2026-01-29"]


async def test_topic_autocomplete_lists_configured_topics(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """Autocomplete of topic offers the configured topics."""
    await fake.command("vllm-report", {"topic": "ro"}, autocomplete="topic")
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    choices = fake.find("POST", CALLBACK)[0].body["data"]["choices"]
    assert choices == [{"name": "rocm", "value": "rocm"}]


async def test_without_command_sync_nothing_is_registered(
    start_bot: StartBot, fake: FakeDiscord, core: ReportCore
) -> None:
    """A client told not to sync logs in and answers, but registers no command with Discord."""
    client = await start_bot(core, sync_commands=False)
    assert client.gateway.is_up
    assert fake.find("PUT", rf"applications/{APP_ID}/commands") == []


async def test_repository_autocomplete_offers_the_configured_repositories(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """Autocomplete of repository offers the configured repositories matching what is typed."""
    await fake.command("vllm-report", {"repository": "vllm"}, autocomplete="repository")
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    choices = fake.find("POST", CALLBACK)[0].body["data"]["choices"]
    assert {"name": "vllm-project/vllm", "value": "vllm-project/vllm"} in choices
    assert all("vllm" in choice["value"] for choice in choices)


async def test_a_component_that_is_not_ours_is_left_alone(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """A click on a component another app made gets no answer from this bot; its own command
    after it is answered."""
    await fake.click("other-app:approve")
    await fake.command("vllm-help")
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    (answer,) = fake.find("POST", CALLBACK)
    assert answer.body["type"] == 4 and "vllm-report" in answer.body["data"]["content"]
