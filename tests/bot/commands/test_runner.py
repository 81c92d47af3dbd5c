"""The command runner: parsed commands to digest requests, questions to the asker it was given."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.commands.grammar import AskCommand, Options, UsageError, parse
from bot.commands.runner import ReportCore
from config.settings import load_config
from digest.errors import ConfigError
from digest.models import Answer
from tests.digest.conftest import SAMPLE_NOW, SAMPLE_ROCM_WEEK
from tests.support.asking import no_digest, sample_core


@pytest.fixture
async def core() -> AsyncIterator[ReportCore]:
    async with sample_core() as made:
        yield made


async def test_core_answers_a_parsed_question(core: ReportCore) -> None:
    """``ask what's new in ROCm?`` parsed by the shared grammar gets the linked ROCm answer."""
    command = parse("ask what's new in ROCm?")
    assert isinstance(command, AskCommand)
    answer = await core.ask(command)
    assert isinstance(answer, Answer)
    assert set(answer.cites) == SAMPLE_ROCM_WEEK and answer.repo == "vllm-project/vllm"


async def test_core_uses_the_language_option(core: ReportCore) -> None:
    """``lang:zh`` answers in Chinese even for an English question."""
    answer = await core.ask(AskCommand("what's new in ROCm?", Options(lang="zh")))
    assert answer.lang == "zh"


async def test_core_rejects_a_malformed_repository(core: ReportCore) -> None:
    """A repository option that is not owner/name is a usage error, not a crash."""
    with pytest.raises(UsageError):
        await core.ask(AskCommand("what's new?", Options(repo="not a repo")))


async def test_core_without_a_mirror_says_so() -> None:
    """Without a store the core explains that questions need the mirror."""
    bare = ReportCore(config=load_config(), get_digest=no_digest, clock=lambda: SAMPLE_NOW)
    with pytest.raises(ConfigError, match="mirror"):
        await bare.ask(AskCommand("what's new in ROCm?"))


async def test_core_answers_any_text(core: ReportCore) -> None:
    """Random question texts always come back as answers."""
    rng = random.Random(3)
    alphabet = "aZ09 ?!@<>[]*_`#\x00最近本周\u202e😀"
    for _ in range(40):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 80)))
        answer = await core.ask(AskCommand(text))
        assert answer.blocks
