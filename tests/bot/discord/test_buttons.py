"""Buttons under a digest's parent on Discord: components clicked through discord.py."""

from __future__ import annotations

from typing import Any

from bot.commands.buttons import ButtonSigner, DigestButtons
from bot.commands.runner import ReportCore
from config.settings import load_config
from tests.bot.discord.conftest import NOW, StartBot
from tests.fakes.discord import EPHEMERAL, FakeDiscord
from tests.support.discord_helpers import CALLBACK, WEBHOOK, payload

SIGNER = ButtonSigner.from_secret("discord-token")


def _buttons() -> DigestButtons:
    return DigestButtons(SIGNER, load_config(), lambda: NOW)


def _row(message: dict[str, Any]) -> list[dict[str, Any]]:
    [row] = message["components"]
    buttons: list[dict[str, Any]] = row["components"]
    return buttons


async def test_previous_day_click_posts_that_days_digest_with_buttons_of_its_own(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord
) -> None:
    """The parent carries one row: previous day, next day, 中文, each within Discord's 100
    characters; clicking "previous day" defers within the interaction and posts 2026-01-30."""
    await start_bot(core, buttons=_buttons())
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    parent = payload(fake.find("POST", WEBHOOK)[0])
    row = _row(parent)
    assert [b["label"] for b in row] == ["◀ Previous day", "Next day ▶", "中文"]
    assert all(len(b["custom_id"]) <= 100 for b in row)

    await fake.click(row[0]["custom_id"])
    await fake.wait_for(lambda calls: len(fake.find("POST", CALLBACK)) == 2)
    assert fake.find("POST", CALLBACK)[1].body == {"type": 5}  # deferred at once
    await fake.wait_for(lambda calls: len(fake.find("POST", WEBHOOK)) >= 2)
    posted = [payload(c) for c in fake.find("POST", WEBHOOK)]
    second = next(p for p in posted[1:] if p.get("components"))
    assert "2026-01-30" in second["embeds"][0]["title"]


async def test_a_forged_button_is_refused_to_the_clicker_only(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord
) -> None:
    """A custom_id this bot did not sign gets an ephemeral refusal and no digest."""
    await start_bot(core, buttons=_buttons())
    await fake.click("vr1|2026-01-30|en|vllm-project/vllm|" + "0" * 16)
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    answer = fake.find("POST", CALLBACK)[0].body
    assert answer["type"] == 4 and answer["data"]["flags"] == EPHEMERAL
    assert "was not made by this bot" in answer["data"]["content"]
    assert not fake.find("POST", WEBHOOK)
