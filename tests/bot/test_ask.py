"""Questions through the core and the ``vllm-report ask`` command's output."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator

import pytest

from bot.ask_cli import run_ask
from bot.core import ReportCore
from bot.grammar import AskCommand, Options, UsageError, parse
from config.settings import load_config
from digest.errors import ConfigError
from digest.models import Answer, Digest
from digest.service import DigestRequest
from digest.store.sqlite import SQLiteStore
from tests.digest.ask.conftest import SAMPLE_NOW, SAMPLE_ROCM_WEEK, fill, sample_rows


async def _no_digest(request: DigestRequest) -> Digest:
    raise ConfigError("no digests in these tests")


@pytest.fixture
async def core() -> AsyncIterator[ReportCore]:
    store = SQLiteStore(":memory:")
    await fill(store, *sample_rows())
    yield ReportCore(
        config=load_config(), get_digest=_no_digest, clock=lambda: SAMPLE_NOW, store=store
    )
    await store.close()


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
    bare = ReportCore(config=load_config(), get_digest=_no_digest, clock=lambda: SAMPLE_NOW)
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


async def test_cli_renders_markdown(core: ReportCore) -> None:
    """``vllm-report ask`` prints the answer as Markdown with linked items."""
    text = await run_ask(core, "what's new in ROCm?", repo=None, lang=None, fmt="md")
    assert text.startswith("### what's new in ROCm? · vllm-project/vllm\n")
    assert "](https://github.com/vllm-project/vllm/pull/33492)" in text


async def test_cli_renders_json_and_honours_flags(core: ReportCore) -> None:
    """``--format json`` prints the answer as JSON; ``--lang`` wins over ``lang:`` in the text."""
    text = await run_ask(core, "ROCm lang:en", repo=None, lang="zh", fmt="json")
    data = json.loads(text)
    assert data["lang"] == "zh" and set(data["cites"]) == SAMPLE_ROCM_WEEK


@pytest.mark.parametrize("question", ["", "   ", "x" * 600, "what's new lang:xx"])
async def test_cli_bad_questions_are_usage_errors(core: ReportCore, question: str) -> None:
    """Empty, overlong or badly optioned questions get a usage error with a hint."""
    with pytest.raises(UsageError):
        await run_ask(core, question, repo=None, lang=None, fmt="md")
