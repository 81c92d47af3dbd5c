"""The model's writer and answerer, when an OpenAI-compatible endpoint is configured.

The answerer is made (and the question package imported) only when a question needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from config.settings import Settings
from digest.writers.base import Writer
from digest.writers.template import TemplateWriter

if TYPE_CHECKING:
    from digest.ask import AnswerWriter


def llm_writers(
    settings: Settings, stack: AsyncExitStack, fallback: TemplateWriter
) -> tuple[Writer | None, Callable[[], AnswerWriter] | None]:
    """The LLM writer and the maker of the LLM answerer when an endpoint is configured, else
    ``(None, None)``."""
    llm = settings.llm
    if not (llm.base_url and llm.model):
        return None, None
    from openai import AsyncOpenAI

    from digest.writers.llm import LLMWriter

    key = llm.api_key.get_secret_value() if llm.api_key else "not-needed"
    client = AsyncOpenAI(
        base_url=llm.base_url, api_key=key, timeout=llm.timeout, max_retries=llm.max_retries
    )
    stack.push_async_callback(client.close)
    from digest.llm.client import cap_calls

    cap_calls(client, llm.max_calls)  # the writer's and the answerer's requests together
    writer = LLMWriter(
        client,
        llm.model,
        fallback=fallback,
        concurrency=llm.concurrency,
        section_tokens=llm.section_tokens,
        digest_tokens=llm.digest_tokens,
        max_output_tokens=llm.max_output_tokens,
        timeout=llm.timeout,
    )
    model = llm.model

    def answerer() -> AnswerWriter:
        from digest.ask.llm import LLMAnswerer

        return LLMAnswerer(
            client, model, max_output_tokens=llm.max_output_tokens, timeout=llm.timeout
        )

    return writer, answerer
