"""Scopes on Discord through the real discord.py and the fake Discord: the repository option
offers the configured scopes and several repositories, and ``scope:NAME`` reports over the
scope, built against the fake GitHub serving two repositories."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from tests.bot.discord.conftest import StartBot
from tests.fakes.discord import FakeDiscord
from tests.support.discord_helpers import CALLBACK, WEBHOOK, payload
from tests.support.scope_core import scope_core
from tests.support.scopes import NOW, SGLANG, VLLM, ScopeRig, scope_rig


@pytest.fixture
async def rig() -> AsyncIterator[ScopeRig]:
    async with scope_rig() as found:
        yield found


async def _choices(fake: FakeDiscord, typed: str) -> list[str]:
    fake.calls.clear()
    await fake.command("vllm-report", {"repository": typed}, autocomplete="repository")
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    return [c["value"] for c in fake.find("POST", CALLBACK)[0].body["data"]["choices"]]


async def test_the_repository_option_completes_scopes_and_lists(
    start_bot: StartBot, fake: FakeDiscord, rig: ScopeRig
) -> None:
    """Typed empty: the repositories, then scope:engines and scope:serving; "scope:se" gives
    scope:serving; after a comma, the list so far with each repository not in it yet."""
    await start_bot(scope_core(rig), now=NOW)
    assert await _choices(fake, "") == [VLLM, SGLANG, "scope:engines", "scope:serving"]
    assert await _choices(fake, "scope:se") == ["scope:serving"]
    assert await _choices(fake, f"{VLLM},") == [f"{VLLM},{SGLANG}"]


async def test_a_scope_option_posts_the_scopes_report(
    start_bot: StartBot, fake: FakeDiscord, rig: ScopeRig
) -> None:
    """/vllm-report window:2026-03-10 repository:scope:serving posts the scope's report,
    titled with its name, both repositories' items linked to their own repository."""
    await start_bot(scope_core(rig), now=NOW)
    await fake.command("vllm-report", {"window": "2026-03-10", "repository": "scope:serving"})
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    parent = payload(fake.find("POST", WEBHOOK)[0])
    assert parent["embeds"][0]["title"].startswith("Serving Development Report - 2026-03-10")
    await fake.wait_for(
        lambda calls: "sgl-project/sglang/issues/1" in json.dumps([c.body for c in fake.calls])
    )
    sent = json.dumps([c.body for c in fake.calls])
    assert f"https://github.com/{VLLM}/issues/1" in sent
    assert rig.requests(SGLANG) > 0
