"""The model's writer and answerer: built only with an endpoint, the writer the default then."""

from __future__ import annotations

from pathlib import Path

from bot.commands.grammar import AskCommand
from bot.compose import build_runtime
from config.settings import LLMSettings, load_config
from tests.bot.compose.conftest import at_now, settings_for
from tests.fakes.github import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI


async def test_without_an_endpoint_the_template_writes(github: FakeGitHub, tmp_path: Path) -> None:
    """No LLM endpoint: only the template writer exists and it is the default."""
    settings = settings_for(github, tmp_path / "m.db", llm=LLMSettings(model="qwen3-8b"))
    async with build_runtime(settings, load_config(), clock=at_now) as runtime:
        assert set(runtime.writers) == {"template"}
        assert runtime.core.default_writer == "template"


async def test_with_an_endpoint_the_model_writes_by_default(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """With ``LLM_BASE_URL`` and ``LLM_MODEL`` the LLM writer is the default one."""
    async with FakeOpenAI() as model:
        llm = LLMSettings(base_url=model.base_url, model="qwen3-8b")
        settings = settings_for(github, tmp_path / "m.db", llm=llm)
        async with build_runtime(settings, load_config(), clock=at_now) as runtime:
            assert runtime.core.default_writer == "llm"
            digest = await runtime.core.build(runtime.core.request("today"))
    assert "llm:qwen3-8b" in {s.writer for s in digest.sections}
    assert model.requests


async def test_with_an_endpoint_the_model_answers_questions(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """The model's answerer, made on the first question, writes the answer; the digest before
    it asked the model nothing about questions."""
    async with FakeOpenAI() as model:
        llm = LLMSettings(base_url=model.base_url, model="qwen3-8b")
        settings = settings_for(github, tmp_path / "m.db", llm=llm)
        async with build_runtime(settings, load_config(), clock=at_now) as runtime:
            await runtime.core.build(runtime.core.request("today", writer="template"))
            assert model.requests == []
            answer = await runtime.core.ask(AskCommand("what's new in ROCm?"))
    assert answer.writer == "llm:qwen3-8b"
    assert model.for_section("ask")
