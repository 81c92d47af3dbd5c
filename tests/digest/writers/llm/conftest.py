"""Fixtures of the LLM writer tests: the fake model server, a real OpenAI client, a writer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import openai
import pytest

from digest.analysis.types import Analysis
from digest.writers.llm import LLMWriter
from digest.writers.template import TemplateWriter
from tests.fakes.openai_server import FakeOpenAI
from tests.support.llm_samples import sample_analysis

MODEL = "qwen3-8b"


@pytest.fixture
def analysis() -> Analysis:
    return sample_analysis()


@pytest.fixture
async def fake() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI() as server:
        yield server


@pytest.fixture
async def make_writer(
    fake: FakeOpenAI,
) -> AsyncIterator[Callable[..., LLMWriter]]:
    """Builds writers on a real ``openai.AsyncOpenAI`` pointed at the fake server."""
    made: list[openai.AsyncOpenAI] = []

    def build(*, max_retries: int = 0, base_url: str | None = None, **options: Any) -> LLMWriter:
        client = openai.AsyncOpenAI(
            base_url=base_url or fake.base_url,
            api_key="test-key",
            max_retries=max_retries,
            timeout=10.0,
        )
        made.append(client)
        options.setdefault("timeout", 5.0)
        return LLMWriter(client, MODEL, fallback=TemplateWriter(), **options)

    yield build
    for client in made:
        await client.close()
