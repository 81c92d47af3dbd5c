"""What each kind of section must say: the summary's counts, item citations, participants."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from digest.analysis.types import Analysis
from digest.writers.llm import LLMWriter
from digest.writers.llm.kinds import KINDS, kind_of
from tests.digest.writers.llm.conftest import MODEL
from tests.fakes.openai_server import (
    Answer,
    ChatRequest,
    FakeOpenAI,
    Reply,
    citing_nothing,
    grounded_data,
    omitting_counts,
)

WriterFactory = Callable[..., LLMWriter]


def test_every_narrative_section_has_one_kind() -> None:
    """Each kind has its task, weight, schema and bounds in one record; topics share one."""
    assert set(KINDS) == {"summary", "topic", "hot", "trends", "key_changes", "activity", "watch"}
    assert kind_of("topic:rocm") is KINDS["topic"] and kind_of("appendix") is None
    for kind in KINDS.values():
        assert kind.task and kind.weight > 0 and kind.schema["type"] == "object"
        assert 0 < kind.length.least < kind.length.most


async def test_a_summary_without_the_counts_is_asked_again(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """A summary leaving out the window's counts is retried with the missing counts named,
    then kept once it states them."""
    fake.script("summary", omitting_counts)
    written = await make_writer().write(analysis, "en")
    retry = fake.for_section("summary")[1].messages[-1]["content"]
    assert "counts exactly as given" in retry
    assert f"new_issues={analysis.counts.new_issues}" in retry
    summary = next(s for s in written.sections if s.id == "summary")
    assert summary.writer == f"llm:{MODEL}" and written.notes == ()


async def test_a_summary_that_never_states_the_counts_falls_back(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """Twice without the counts: the template's summary, which states them, with a note."""
    fake.script("summary", omitting_counts, omitting_counts)
    written = await make_writer().write(analysis, "zh")
    summary = next(s for s in written.sections if s.id == "summary")
    assert summary.writer == "template" and summary.fallback == "counts"
    assert written.notes == ("📊 每日开发状态摘要：模型未如实给出统计数字，本节由模板生成",)


@pytest.mark.parametrize("section", ["summary", "topic:rocm", "trends"])
async def test_a_section_that_cites_nothing_falls_back(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis, section: str
) -> None:
    """An item section that cites none of its items is retried, then is the template's."""
    fake.script(section, citing_nothing, citing_nothing)
    written = await make_writer().write(analysis, "en")
    assert "cites none of the items" in fake.for_section(section)[1].messages[-1]["content"]
    kept = next(s for s in written.sections if s.id == section)
    assert kept.writer == "template" and kept.fallback == "cites"
    assert any("cited none of the items" in n for n in written.notes)


def _one_voice(request: ChatRequest) -> Reply:
    """A hot-discussion answer that gives only the first participant's viewpoint."""
    data = grounded_data(request)
    for discussion in data.get("discussions", []):
        discussion["viewpoints"] = discussion["viewpoints"][:1]
    return Answer(json.dumps(data))


async def test_hot_discussions_name_two_participants(
    fake: FakeOpenAI, make_writer: WriterFactory, analysis: Analysis
) -> None:
    """A discussion with several people in the data must give two viewpoints or more."""
    fake.script("hot", _one_voice, _one_voice)
    written = await make_writer().write(analysis, "en")
    retry = fake.for_section("hot")[1].messages[-1]["content"]
    assert "at least two of its participants" in retry
    hot = next(s for s in written.sections if s.id == "hot")
    assert hot.writer == "template" and hot.fallback == "participants"
