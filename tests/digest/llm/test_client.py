"""Format negotiation with OpenAI-compatible servers, through the real ``openai`` client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import openai
import pytest

from digest.llm.client import ChatClient, LLMFailure, Mode, cap_calls
from digest.llm.reasons import Reason
from digest.writers.llm import LLMWriter
from digest.writers.template import TemplateWriter
from tests.fakes.openai_server import Answer as FakeAnswer
from tests.fakes.openai_server import FakeOpenAI, status
from tests.support.llm_samples import sample_analysis

MODEL = "smol"
SECTIONS = 7  # the narrative sections of the sample day


@pytest.fixture
async def llama_like() -> AsyncIterator[FakeOpenAI]:
    """A server that refuses ``json_schema`` with a 500 naming the format, as llama.cpp does."""
    async with FakeOpenAI(json_schema=False, refusal_status=500) as server:
        yield server


def _client(server: FakeOpenAI, max_retries: int = 2) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=server.base_url, api_key="k", max_retries=max_retries, timeout=10.0
    )


async def test_a_500_naming_the_format_costs_one_refused_request_per_digest(
    llama_like: FakeOpenAI,
) -> None:
    """Seven concurrent sections against a llama.cpp-like server: one refused request (no
    client retries of it), then every section in JSON-object mode with the schema attached."""
    client = _client(llama_like)
    writer = LLMWriter(client, MODEL, fallback=TemplateWriter(), concurrency=8, timeout=5.0)
    written = await writer.write(sample_analysis(), "en")
    await client.close()
    kinds = [r.response_format for r in llama_like.requests]
    assert kinds == ["json_schema"] + ["json_object"] * SECTIONS
    assert all(r.response_schema for r in llama_like.requests)
    assert {s.writer for s in written.sections} == {f"llm:{MODEL}", "template"}
    assert written.notes == ()


async def test_the_format_is_remembered_for_the_endpoint(llama_like: FakeOpenAI) -> None:
    """A second digest, and a second writer or answerer on the same client, send no refused
    request: the negotiated format is the endpoint's."""
    client = _client(llama_like)
    await LLMWriter(client, MODEL, fallback=TemplateWriter(), timeout=5.0).write(
        sample_analysis(), "en"
    )
    await LLMWriter(client, MODEL, fallback=TemplateWriter(), timeout=5.0).write(
        sample_analysis(), "zh"
    )
    assert ChatClient(client, MODEL, max_output_tokens=10, timeout=1).mode is Mode.OBJECT_SCHEMA
    await client.close()
    kinds = [r.response_format for r in llama_like.requests]
    assert kinds.count("json_schema") == 1
    assert len(kinds) == 1 + 2 * SECTIONS


async def test_another_model_on_the_same_server_negotiates_again(llama_like: FakeOpenAI) -> None:
    """What a server accepts is learnt per model: a second model starts from the strictest."""
    client = _client(llama_like)
    for model in ("a", "b"):
        await ChatClient(client, model, max_output_tokens=50, timeout=5.0).ask(
            [{"role": "user", "content": '<task section="x">t</task>'}], "x", {"type": "object"}
        )
    await client.close()
    assert [r.response_format for r in llama_like.requests] == ["json_schema", "json_object"] * 2


async def test_a_500_that_does_not_name_the_format_is_an_error() -> None:
    """A plain 500 is retried under the client's own policy, then is the server's failure."""
    async with FakeOpenAI() as server:
        server.script("x", status(500), status(500), status(500))
        client = _client(server, max_retries=2)
        chat = ChatClient(client, MODEL, max_output_tokens=50, timeout=5.0)
        with pytest.raises(Exception, match="server_error 500"):
            await chat.ask(
                [{"role": "user", "content": '<task section="x">t</task>'}],
                "x",
                {"type": "object"},
            )
        await client.close()
    assert [r.response_format for r in server.requests] == ["json_schema"] * 3
    assert chat.mode is Mode.SCHEMA


async def test_a_server_without_any_format_is_asked_in_plain_text() -> None:
    """Refusing every format, a server is asked with no response format at all."""
    async with FakeOpenAI(json_schema=False, json_object=False, refusal_status=422) as server:
        client = _client(server)
        chat = ChatClient(client, MODEL, max_output_tokens=50, timeout=5.0)
        reply = await chat.ask(
            [{"role": "user", "content": '<task section="x">t</task>'}], "x", {"type": "object"}
        )
        await client.close()
    assert [r.response_format for r in server.requests] == [
        "json_schema",
        "json_object",
        "json_object",
        None,
    ]
    assert chat.mode is Mode.TEXT and chat.endpoint.refused == 3
    assert isinstance(reply.data, dict)


async def test_an_answer_cut_off_mid_object_is_truncated_not_misread() -> None:
    """A JSON answer cut off at the token limit is truncated, even if an inner object parses."""
    cut = '{"discussions": [{"number": 1, "viewpoints": [{"login": "a", "view": "b"}, {"lo'
    async with FakeOpenAI(default=lambda request: FakeAnswer(cut, finish_reason="length")) as fake:
        client = _client(fake)
        chat = ChatClient(client, MODEL, max_output_tokens=50, timeout=5.0)
        with pytest.raises(LLMFailure) as failure:
            await chat.ask(
                [{"role": "user", "content": '<task section="x">t</task>'}], "x", {"type": "object"}
            )
        await client.close()
    assert failure.value.reason is Reason.TRUNCATED


async def test_a_process_cap_bounds_the_requests_of_every_writer_on_a_client() -> None:
    """Two digests written at once (8 sections each at a time) on a client capped at 3: the
    server never sees more than 3 requests at once, and every section is still written."""
    async with FakeOpenAI(latency=0.05) as server:
        client = _client(server)
        cap_calls(client, 3)
        writers = [
            LLMWriter(client, MODEL, fallback=TemplateWriter(), concurrency=8, timeout=10.0)
            for _ in range(2)
        ]
        written = await asyncio.gather(
            *(
                w.write(sample_analysis(), lang)
                for w, lang in zip(writers, ("en", "zh"), strict=True)
            )
        )
        await client.close()
    assert server.max_in_flight == 3
    assert all(f"llm:{MODEL}" in {s.writer for s in w.sections} for w in written)
    assert len(server.requests) >= 2 * SECTIONS
