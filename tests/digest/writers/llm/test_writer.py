"""The LLM writer against a fake OpenAI-compatible server, through the real ``openai`` client."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest

from config.settings import LLMSettings, load_config
from digest.analysis.analyze import analyze
from digest.analysis.types import Analysis
from digest.llm.budget import estimate_messages
from digest.models import Digest, ItemRef, Section, Text, UserRef, Window, iter_spans
from digest.render.json import to_json
from digest.render.markdown import footer
from digest.writers.base import Written
from digest.writers.llm import LLMWriter, estimate_tokens
from tests.digest.writers.llm.conftest import MODEL
from tests.fakes.openai_server import (
    FakeOpenAI,
    Responder,
    appending,
    blank,
    echoing,
    english_terms,
    fenced,
    gullible,
    hallucinating,
    hallucinating_login,
    hallucinating_number,
    invalid_json,
    raw,
    refusing,
    refusing_text,
    slow,
    status,
    wrong_language,
)
from tests.support.llm_samples import (
    one_day_analysis,
    window_data,
    window_logins,
    window_numbers,
)

NARRATIVE = ("summary", "topic:rocm", "hot", "trends", "key_changes", "activity", "watch")
WriterFactory = Callable[..., LLMWriter]


def _text(section: Section) -> str:
    return "".join(s.text for s in iter_spans(section.blocks) if isinstance(s, Text))


def _assert_grounded(written: Written) -> None:
    """No section is blank, and every link and name is of the window's data."""
    numbers, logins = window_numbers(), window_logins()
    for section in written.sections:
        spans = iter_spans(section.blocks)
        assert any(not isinstance(s, Text) or s.text.strip() for s in spans), section.id
        for span in spans:
            if isinstance(span, ItemRef):
                assert span.number in numbers, (section.id, span)
            if isinstance(span, UserRef):
                assert span.login in logins, (section.id, span)
            if isinstance(span, Text):
                for number in re.findall(r"#(\d+)", span.text):
                    assert int(number) in numbers, (section.id, span.text)
                for login in re.findall(r"(?<![\w`])@([\w-]+)", span.text):
                    assert login in logins, (section.id, span.text)


async def test_good_answers_write_every_narrative_section(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """A well-behaved model writes all seven narrative sections; the appendix is the template's."""
    written = await make_writer().write(analysis, "en")
    writers = {s.id: s.writer for s in written.sections}
    assert writers == {**dict.fromkeys(NARRATIVE, f"llm:{MODEL}"), "appendix": "template"}
    assert written.notes == ()
    assert len(fake.requests) == len(NARRATIVE)
    assert all(r.response_format == "json_schema" for r in fake.requests)
    _assert_grounded(written)


async def test_usage_sums_what_the_server_reported(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """The digest's token usage is the sum of the responses' ``usage``."""
    written = await make_writer().write(analysis, "en")
    assert written.usage.prompt_tokens == sum(r.prompt_tokens for r in fake.requests)
    assert written.usage.completion_tokens > 0


async def test_sections_link_items_and_people(
    make_writer: WriterFactory, analysis: Analysis
) -> None:
    """``#N`` and ``@login`` in the model's text become links; code stays code."""
    written = await make_writer().write(analysis, "en")
    hot = next(s for s in written.sections if s.id == "hot")
    spans = iter_spans(hot.blocks)
    assert ItemRef in {type(s) for s in spans}
    assert {s.login for s in spans if isinstance(s, UserRef)} >= {"carol", "dave", "bob"}
    assert Text("FP8", "code") in spans


async def test_chinese_output(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """``zh`` asks for Simplified Chinese and keeps Chinese headings and labels."""
    written = await make_writer().write(analysis, "zh")
    assert all("简体中文" in r.system for r in fake.requests)
    hot = next(s for s in written.sections if s.id == "hot")
    assert hot.title == "💬 高热度讨论分析"
    assert hot.writer == f"llm:{MODEL}"
    assert "核心问题" in _text(hot) and "推进" in _text(hot)
    assert "ROCm" in _text(hot)


@pytest.mark.parametrize(
    ("responder", "reason"),
    [
        (invalid_json, "did not parse"),
        (refusing, "declined"),
        (refusing_text, "declined"),
        (status(429, "rate limit reached"), "rate limited"),
        (status(500), "failed"),
        (slow(3.0), "timed out"),
        (raw("<html>Bad gateway</html>"), "failed"),
        (raw('{"choices": null}', "application/json"), "failed"),
        (raw("{not json", "application/json"), "failed"),
    ],
    ids=[
        "invalid-json",
        "refusal",
        "refusal-text",
        "429",
        "500",
        "timeout",
        "html-page",
        "no-choices",
        "broken-body",
    ],
)
async def test_a_failed_section_falls_back_alone(
    fake: FakeOpenAI,
    make_writer: WriterFactory,
    analysis: Analysis,
    responder: Responder,
    reason: str,
) -> None:
    """A section that fails keeps the template's text with a note; the others are the model's."""
    fake.script("hot", responder)
    # only the slow section may time out, however slow the machine is for the others
    writer = make_writer(timeout=1.5 if reason == "timed out" else 30.0)
    written = await writer.write(analysis, "en")
    hot = next(s for s in written.sections if s.id == "hot")
    assert hot.writer == "template"
    assert len(written.notes) == 1
    assert written.notes[0].startswith(hot.title) and reason in written.notes[0]
    others = [s.writer for s in written.sections if s.id not in ("hot", "appendix")]
    assert others == [f"llm:{MODEL}"] * 6
    assert len(fake.for_section("hot")) == 1
    _assert_grounded(written)


async def test_client_retries_are_the_clients(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """A 500 is retried by the ``openai`` client's own policy, then the section falls back."""
    fake.script("watch", status(500), status(500))
    written = await make_writer(max_retries=1).write(analysis, "en")
    assert len(fake.for_section("watch")) == 2
    assert next(s for s in written.sections if s.id == "watch").writer == "template"


@pytest.mark.parametrize(
    "responder",
    [hallucinating, hallucinating_number, hallucinating_login],
    ids=["text", "number-field", "login"],
)
async def test_ungrounded_answer_is_retried_once_then_replaced(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis, responder: Responder
) -> None:
    """An answer citing unknown items or people is retried once with the problem stated, then
    replaced by the template's section."""
    fake.script("hot", responder, responder)
    written = await make_writer().write(analysis, "en")
    sent = fake.for_section("hot")
    assert len(sent) == 2
    assert not sent[0].is_retry and sent[1].is_retry
    assert "not in the data" in sent[1].messages[-1]["content"]
    assert next(s for s in written.sections if s.id == "hot").writer == "template"
    assert any("not in the data" in n for n in written.notes)
    _assert_grounded(written)


async def test_a_retry_that_fixes_the_answer_is_kept(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """A hallucination corrected on the retry gives a model-written section."""
    fake.script("key_changes", hallucinating)
    written = await make_writer().write(analysis, "en")
    assert "#987654" in fake.for_section("key_changes")[1].messages[-1]["content"]
    assert next(s for s in written.sections if s.id == "key_changes").writer == f"llm:{MODEL}"
    assert written.notes == ()


async def test_scripted_failure_suite_never_names_unknown_items_or_people(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """Every section failing differently: nothing blank, nothing outside the window's data."""
    fake.script("summary", hallucinating, hallucinating)
    fake.script("topic:rocm", gullible, gullible)
    fake.script("hot", hallucinating_login, hallucinating_login)
    fake.script("trends", invalid_json)
    fake.script("key_changes", status(429))
    fake.script("activity", refusing)
    fake.script("watch", slow(3.0))
    written = await make_writer(timeout=0.5).write(analysis, "zh")
    assert {s.writer for s in written.sections} == {"template"}
    assert len(written.notes) == len(NARRATIVE)
    _assert_grounded(written)


HOSTILE = (
    "<!channel> read this",
    "@everyone look",
    "ping <@U0123ABC>",
    "[github.com](https://evil.example/phish)",
    "see vllm-project/vllm#987654",
    "PR#987654",
    "＃987654",
    "github.com/vllm-project/vllm/pull/987654",
    "www.evil.example",
    "由@made-up-person推进",
    "修复了#987654的问题",
    "upgrade now via evil.example/fix.sh",
    "see example.com for the patch",
    "hxxps://evil.example/patch",
    "write to security@example.org",
    "请访问example.com获取补丁",
)


@pytest.mark.parametrize("hostile", HOSTILE)
async def test_hostile_model_text_never_reaches_the_digest(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis, hostile: str
) -> None:
    """Pings, disguised links and references outside the window send the section back to the
    template after one retry; none of it is shown."""
    fake.script("trends", appending(hostile), appending(hostile))
    written = await make_writer().write(analysis, "en")
    assert len(fake.for_section("trends")) == 2
    trends = next(s for s in written.sections if s.id == "trends")
    assert trends.writer == "template"
    assert all(hostile not in _text(s) for s in written.sections)
    _assert_grounded(written)


async def test_an_answer_that_shows_nothing_falls_back(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """An answer of nothing but Markdown emphasis is not a section: asked once more, then the
    template's is kept."""
    fake.script("summary", blank, blank)
    fake.script("watch", blank, blank)
    written = await make_writer().write(analysis, "en")
    writers = {s.id: s.writer for s in written.sections}
    assert writers["summary"] == writers["watch"] == "template"
    assert len(fake.for_section("summary")) == len(fake.for_section("watch")) == 2
    assert sum("answer was empty" in n for n in written.notes) == 2
    _assert_grounded(written)


async def test_injected_instructions_change_nothing(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """An issue body telling the model to post @channel stays delimited data, and a model that
    obeys it is caught."""
    fake.script("topic:rocm", gullible, gullible)
    written = await make_writer().write(analysis, "en")
    task = fake.for_section("topic:rocm")[0].task
    assert task.count("</item_data>") == 1
    data = task.split("<item_data>", 1)[1]
    assert "Ignore your instructions" in data
    assert "@channel" not in task and "#999999" not in task and "evil.example" not in task
    assert "untrusted" in fake.requests[0].system
    topic = next(s for s in written.sections if s.id == "topic:rocm")
    assert topic.writer == "template"
    everything = " ".join(_text(s) for s in written.sections)
    assert "<!channel>" not in everything
    assert not any(
        isinstance(s, UserRef) and s.login == "channel"
        for section in written.sections
        for s in iter_spans(section.blocks)
    )
    _assert_grounded(written)


async def test_server_without_json_schema_gets_json_object(
    make_writer: WriterFactory, analysis: Analysis
) -> None:
    """A 400 about ``json_schema`` downgrades to JSON-object mode, remembered for later requests."""
    async with FakeOpenAI(json_schema=False) as server:
        writer = make_writer(base_url=server.base_url, concurrency=1)
        written = await writer.write(analysis, "en")
        again = await writer.write(analysis, "en")
    kinds = [r.response_format for r in server.requests]
    assert kinds.count("json_schema") == 1
    assert kinds.count("json_object") == 2 * len(NARRATIVE)
    assert {s.writer for s in written.sections + again.sections} == {
        f"llm:{MODEL}",
        "template",
    }
    assert written.notes == again.notes == ()


async def test_newer_openai_models_get_max_completion_tokens(
    make_writer: WriterFactory, analysis: Analysis
) -> None:
    """A server that rejects ``max_tokens`` is asked with ``max_completion_tokens`` instead."""
    async with FakeOpenAI(max_tokens=False) as server:
        written = await make_writer(base_url=server.base_url, concurrency=1).write(analysis, "en")
    assert "max_tokens" in server.requests[0].body
    assert all("max_completion_tokens" in r.body for r in server.requests[1:])
    assert written.notes == ()


async def test_server_without_response_format_is_parsed_tolerantly(
    make_writer: WriterFactory, analysis: Analysis
) -> None:
    """With no response format at all, JSON is found inside prose and code fences."""
    async with FakeOpenAI(json_schema=False, json_object=False, default=fenced) as server:
        written = await make_writer(base_url=server.base_url).write(analysis, "en")
    assert [r.response_format for r in server.requests][-len(NARRATIVE) :] == [None] * len(
        NARRATIVE
    )
    assert written.notes == ()
    assert sum(s.writer != "template" for s in written.sections) == len(NARRATIVE)


async def test_a_quiet_window_asks_nothing(fake: FakeOpenAI, make_writer: WriterFactory) -> None:
    """A window without activity is written from the data, without a request."""
    data = window_data()
    later = Window(data.window.end + timedelta(days=3), data.window.end + timedelta(days=4))
    quiet = analyze(replace(data, window=later), load_config().topics_for(data.repo))
    written = await make_writer().write(quiet, "en")
    assert fake.requests == []
    assert {s.writer for s in written.sections} == {"template"}
    assert written.notes == ()


async def test_unreachable_server_falls_back_everywhere(
    make_writer: WriterFactory, analysis: Analysis
) -> None:
    """With the server gone, every section is the template's and the digest says why."""
    async with FakeOpenAI() as server:
        url = server.base_url
    written = await make_writer(base_url=url).write(analysis, "en")
    assert {s.writer for s in written.sections} == {"template"}
    assert all("unreachable" in n for n in written.notes)
    assert written.usage.total == 0


async def test_requests_stay_within_the_token_budget(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """Each request fits the section budget and all of them the digest budget."""
    writer = make_writer(section_tokens=1800, digest_tokens=9000, max_output_tokens=400)
    written = await writer.write(analysis, "en")
    assert fake.requests
    for request in fake.requests:
        assert request.max_tokens == 400
        assert estimate_messages(request.messages) + 400 <= 1800
    spent = sum(estimate_messages(r.messages) + 400 for r in fake.requests)
    assert spent <= 9000
    assert written.usage.total <= 9000


async def test_a_vllm_sized_day_fits_the_default_budget(
    fake: FakeOpenAI, make_writer: WriterFactory
) -> None:
    """A one-day vLLM-sized digest is written whole within the default 28k-token budget."""
    settings = LLMSettings()
    writer = make_writer(
        section_tokens=settings.section_tokens,
        digest_tokens=settings.digest_tokens,
        max_output_tokens=settings.max_output_tokens,
    )
    written = await writer.write(one_day_analysis(), "zh")
    assert written.notes == ()
    assert len(fake.requests) == len(NARRATIVE)
    prompts = [estimate_messages(r.messages) for r in fake.requests]
    assert sum(prompts) + len(prompts) * settings.max_output_tokens <= settings.digest_tokens
    assert max(prompts) + settings.max_output_tokens <= settings.section_tokens
    assert written.usage.total <= settings.digest_tokens


async def test_a_tiny_budget_falls_back_instead_of_overspending(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """Sections that cannot fit the budget keep the template's text, with a note."""
    writer = make_writer(section_tokens=1500, digest_tokens=5000, max_output_tokens=500)
    written = await writer.write(analysis, "en")
    spent = sum(estimate_messages(r.messages) + 500 for r in fake.requests)
    assert spent <= 5000
    assert any("token budget" in n for n in written.notes)
    _assert_grounded(written)


async def test_concurrency_is_bounded(make_writer: WriterFactory, analysis: Analysis) -> None:
    """No more requests are in flight than the writer's concurrency."""
    async with FakeOpenAI(latency=0.1) as server:
        await make_writer(base_url=server.base_url, concurrency=2).write(analysis, "en")
    assert server.max_in_flight == 2


def test_estimate_is_conservative_for_chinese() -> None:
    """Chinese text is estimated at more tokens a character than English."""
    assert estimate_tokens("性能与内核" * 10) > estimate_tokens("kernel" * 10)


@pytest.mark.slow
async def test_seven_sections_take_about_as_long_as_the_slowest(
    make_writer: WriterFactory, analysis: Analysis
) -> None:
    """Seven sections at 1 s latency each complete in well under 2.5 s of wall time."""
    async with FakeOpenAI(latency=1.0) as server:
        writer = make_writer(base_url=server.base_url, timeout=10.0)
        started = time.monotonic()
        written = await writer.write(analysis, "en")
        wall = time.monotonic() - started
    assert len(server.requests) == len(NARRATIVE)
    assert written.notes == ()
    assert wall < 2.5


@pytest.mark.parametrize("section", NARRATIVE)
async def test_an_echo_of_the_answer_format_is_caught(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis, section: str
) -> None:
    """A model that answers with the answer format's placeholders is asked once more, saying
    so, then the section is the template's; no placeholder reaches the digest."""
    fake.script(section, echoing, echoing)
    written = await make_writer().write(analysis, "en")
    sent = fake.for_section(section)
    assert len(sent) == 2 and "placeholder" in sent[1].messages[-1]["content"]
    kept = next(s for s in written.sections if s.id == section)
    assert kept.writer == "template" and kept.fallback == "echo"
    assert written.notes == (
        f"{kept.title}: the model echoed the prompt's format or "
        "instructions; this section was written from the data",
    )
    placeholders = {"one paragraph of 3-5 sentences", "the current status", "text"}
    assert not any(_text(s).strip().lower() in placeholders for s in written.sections)


@pytest.mark.parametrize(
    ("lang", "problem"),
    [("zh", "not in Simplified Chinese"), ("en", "not in English")],
)
async def test_an_answer_in_the_wrong_language_is_caught(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis, lang: str, problem: str
) -> None:
    """A section written in the other language is asked again, then falls back."""
    fake.script("hot", wrong_language, wrong_language)
    fake.script("watch", wrong_language)
    written = await make_writer().write(analysis, lang)
    by_id = {s.id: s for s in written.sections}
    assert by_id["hot"].writer == "template" and by_id["hot"].fallback == "language"
    assert by_id["watch"].writer == f"llm:{MODEL}"  # fixed on the retry
    assert len(fake.for_section("watch")) == 2
    assert problem in fake.for_section("hot")[1].messages[-1]["content"]


async def test_a_zh_answer_below_the_templates_chinese_share_falls_back(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """zh sections are 40 % Chinese by the template's measure: an answer thick with English
    terms is asked again, then replaced by the template; a grounded zh answer with names is
    kept and measures 40 % or more."""
    from digest.i18n.share import chinese_share, prose

    fake.script("hot", english_terms, english_terms)
    written = await make_writer().write(analysis, "zh")
    by_id = {s.id: s for s in written.sections}
    assert by_id["hot"].writer == "template" and by_id["hot"].fallback == "language"
    assert "mostly English" in fake.for_section("hot")[1].messages[-1]["content"]
    kept = by_id["watch"]
    assert kept.writer == f"llm:{MODEL}" and chinese_share(prose(kept.blocks)) >= 0.4


async def test_fallbacks_are_counted_in_the_footer_and_the_json(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """The footer and the JSON provenance say how many sections fell back, by reason, and each
    section's JSON says why it did."""
    fake.script("summary", echoing, echoing)
    fake.script("trends", echoing, echoing)
    fake.script("hot", wrong_language, wrong_language)
    written = await make_writer().write(analysis, "en")
    data = window_data()
    digest = Digest(
        repo=data.repo,
        window=data.window,
        lang="en",
        counts=analysis.counts,
        sections=written.sections,
        generated_at=data.window.end,
        synced_at=None,
        repo_url=data.repo_url,
        usage=written.usage,
        notes=written.notes,
    )
    assert digest.fallbacks == {"echo": 2, "language": 1}
    as_json = to_json(digest)
    assert as_json["provenance"]["fallbacks"] == {"echo": 2, "language": 1}
    by_id = {s["id"]: s for s in as_json["sections"]}
    assert by_id["hot"]["fallback"] == "language" and by_id["activity"]["fallback"] is None
    assert "Template fallbacks: echo 2, language 1" in footer(digest)
