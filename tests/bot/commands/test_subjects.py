"""What a command reports on: configured scopes and several repositories, checked against
the configuration."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.commands.grammar import AskCommand, UsageError, parse
from bot.commands.subjects import subject_repos
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
