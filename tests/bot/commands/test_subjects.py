"""What a command reports on: configured scopes and several repositories, checked against
the configuration."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.commands.defaults import Caller, DefaultsStore
from bot.commands.dispatch import DigestBuild, Dispatcher, Reply, granted
from bot.commands.grammar import AskCommand, DigestCommand, Options, UsageError, parse
from bot.commands.scope_refs import ScopeRefs, ref_of
from bot.commands.subjects import across, subject_repos
from digest.backends.sqlite.state import SQLiteState
from tests.fakes.subscriptions import MemorySubscriptions
from tests.support.scope_core import scope_config, scope_core
from tests.support.scopes import SGLANG, VLLM, ScopeRig, scope_rig


@pytest.fixture
async def rig() -> AsyncIterator[ScopeRig]:
    async with scope_rig() as found:
        yield found


def test_the_subject_of_a_scope_is_its_configured_repositories() -> None:
    """scope:NAME (any case) stands for its configured repositories; an unknown name lists
    the configured ones."""
    config = scope_config()
    assert subject_repos(config, parse("today scope:SERVING").options) == (VLLM, SGLANG)
    assert subject_repos(config, parse(f"today repo:{SGLANG}").options) == (SGLANG,)
    with pytest.raises(UsageError, match="configured scopes: engines, serving"):
        subject_repos(config, parse("today scope:other").options)


async def test_a_question_over_a_scope_says_how_to_ask(rig: ScopeRig) -> None:
    """A question names one repository; over a scope it is told to ask for the scope's topic
    report instead, with the option to type."""
    command = parse("what's new in ROCm? scope:serving")
    assert isinstance(command, AskCommand)
    with pytest.raises(UsageError, match="`topic rocm week scope:serving`"):
        await scope_core(rig).ask(command)


async def test_a_channels_scope_setting_is_the_subject_of_its_bare_commands(
    rig: ScopeRig,
) -> None:
    """`settings scope:serving` makes a bare `today` of the channel a report over the scope;
    a command's own repo: still wins; an unknown scope is refused with the configured ones."""
    state = SQLiteState(":memory:", clock=rig.clock)
    try:
        dispatcher = Dispatcher(
            scope_core(rig), None, platform="slack", defaults=DefaultsStore(state)
        )
        caller = Caller("C1")
        saved = await dispatcher.text(
            "settings scope:serving", channel="C1", can_manage=granted(True), caller=caller
        )
        assert (
            isinstance(saved, Reply) and saved.text == "Defaults for this channel: scope serving."
        )
        build = await dispatcher.text(
            "2026-03-10", channel="C1", can_manage=granted(True), caller=caller
        )
        assert isinstance(build, DigestBuild)
        request = await build.request()
        assert request.scope is not None and request.scope.name == "serving"
        own = await dispatcher.text(
            f"2026-03-10 repo:{SGLANG}", channel="C1", can_manage=granted(True), caller=caller
        )
        assert isinstance(own, DigestBuild)
        assert (await own.request()).repos == (SGLANG,)
        with pytest.raises(UsageError, match="configured scopes: engines, serving"):
            await dispatcher.text(
                "settings scope:nope", channel="C1", can_manage=granted(True), caller=caller
            )
    finally:
        await state.close()


async def test_an_ad_hoc_subscription_keeps_its_list_for_the_buttons_of_its_posts(
    rig: ScopeRig,
) -> None:
    """`subscribe repo:a/b,c/d` stores the subscription under both names and keeps the list
    its daily posts' buttons refer to, readable from the shared state by any replica."""
    state = SQLiteState(":memory:", clock=rig.clock)
    try:
        store = MemorySubscriptions()
        dispatcher = Dispatcher(
            scope_core(rig), store, platform="slack", defaults=DefaultsStore(state)
        )
        reply = await dispatcher.text(
            f"subscribe repo:{VLLM},{SGLANG}", channel="C1", can_manage=granted(True)
        )
        assert isinstance(reply, Reply)
        assert reply.text.startswith(f"Subscribed: a {VLLM} + {SGLANG} digest in en, daily")
        [made] = await store.list("slack", "C1")
        assert made.subject == f"{VLLM},{SGLANG}"
        assert await ScopeRefs(state).recall(ref_of((VLLM, SGLANG))) == (VLLM, SGLANG)
    finally:
        await state.close()


def _ask(text: str) -> AskCommand:
    command = parse(text)
    assert isinstance(command, AskCommand)
    return command


@pytest.mark.parametrize(
    ("text", "window", "scope"),
    [
        ("what's new in ROCm across serving?", "week", "serving"),
        ("anything on AMD yesterday across Engines?", "yesterday", "engines"),
        ("what's new in ROCm today? scope:serving", "today", "serving"),
    ],
)
def test_a_question_across_a_scope_is_its_topics_report(text: str, window: str, scope: str) -> None:
    """A question over a configured scope that names a topic (or its synonym) is that topic's
    report over the scope, over the window it names (the week by default)."""
    command = across(scope_config(), _ask(text))
    assert command == DigestCommand(window, ("rocm",), None, Options(scope=scope))


def test_across_anything_else_stays_a_question() -> None:
    """ "across" not followed by a configured scope is part of the question; a scope without a
    topic stays a question over the scope (which is then told what to ask)."""
    config = scope_config()
    plain = _ask("what changed across the codebase?")
    assert across(config, plain) == plain
    tpu = across(config, _ask("any news on TPU across serving?"))
    assert tpu == AskCommand("any news on TPU?", Options(scope="serving"))
