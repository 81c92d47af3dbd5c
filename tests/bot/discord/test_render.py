"""The pure Discord renderer: parent embed, thread messages, answers; always within limits."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.commands.grammar import DigestCommand, Options
from bot.commands.runner import ReportCore
from bot.discord import render_answer, render_discord, validate
from bot.discord.limits import THREAD_NAME, problems
from digest.analysis.addresses import addresses
from digest.models import (
    Answer,
    BulletList,
    Digest,
    ItemRef,
    Lang,
    Paragraph,
    Section,
    Text,
    Window,
)
from digest.render.chat import TOP_ENTRIES
from tests.bot.discord.conftest import synthetic_digest
from tests.support.discord_helpers import texts
from tests.support.outside import ADDRESSES, GITHUB, with_outside_text


async def _sample(core: ReportCore, lang: str = "en") -> Digest:
    return await core.digest(DigestCommand("2026-01-31", options=Options(lang=lang)))


def _appendix_numbers(digest: Digest) -> list[int]:
    appendix = digest.section("appendix")
    assert appendix is not None
    return list(appendix.cites)


def _assert_complete(digest: Digest) -> None:
    post = render_discord(digest)
    validate(post)
    for message in post.messages:
        assert problems(message.to_dict()) == []
    text = "\n".join(e.description for m in post.thread for e in m.embeds)
    linked = {int(n) for n in re.findall(r"\[#(\d+) ", text)}
    assert [n for n in _appendix_numbers(digest) if n not in linked] == []


async def test_parent_embed_holds_title_counts_summary_window_and_source(
    core: ReportCore,
) -> None:
    """The parent: report title, counts line, daily summary, window and provenance fields."""
    digest = await _sample(core, "zh")
    parent = render_discord(digest).parent.embeds[0]
    assert parent.title == "vLLM 开发动态报告 - 2026-01-31"
    assert parent.url == "https://github.com/vllm-project/vllm"
    assert parent.description.startswith("新 Issue 4 | 关闭 Issue 2 | 新 PR 5 | 合并 PR 2 |")
    assert "\n\n本时段" in parent.description
    fields = {f.name: f.value for f in parent.fields}
    assert fields["时间窗口"] == "2026-01-31 11:21 (UTC+8) ~ 2026-02-01 11:21 (UTC+8)"
    assert "template" in fields["数据来源"]


async def test_thread_has_one_titled_run_per_section(core: ReportCore) -> None:
    """Each section after the summary starts a message whose first embed carries its title."""
    digest = await _sample(core)
    post = render_discord(digest)
    titles = [e.title for m in post.thread for e in m.embeds if e.title]
    assert titles == [s.title for s in digest.sections if s.id != "summary"]
    assert all(len(m.embeds) <= 2 for m in post.thread)


async def test_thread_name_is_short(core: ReportCore) -> None:
    """A very long display name still gives a thread name of at most 100 characters."""
    digest = dataclasses.replace(await _sample(core), display_name="vLLM " * 60)
    name = render_discord(digest).thread_name
    assert len(name) <= THREAD_NAME
    assert name.endswith("…")


async def test_long_summary_continues_in_the_thread(core: ReportCore) -> None:
    """A summary too long for the parent embed is cut there and posted whole in the thread."""
    digest = await _sample(core)
    words = tuple(Text(f"sentence {n} about the scheduler. ") for n in range(600))
    summary = Section("summary", "📊 Daily summary", (Paragraph(words),))
    long = dataclasses.replace(digest, sections=(summary, *digest.sections[1:]))
    post = render_discord(long)
    validate(post)
    assert post.parent.embeds[0].description.endswith("*… continued in the thread*")
    assert post.thread[0].embeds[0].title == "📊 Daily summary"
    chinese = render_discord(dataclasses.replace(long, lang=Lang.ZH))
    assert chinese.parent.embeds[0].description.endswith("*… 完整内容见讨论串*")


@pytest.mark.parametrize("lead", ["x", "xx", "xxx"])
async def test_cut_summary_fills_the_parent_to_the_limit_and_no_further(
    core: ReportCore, lead: str
) -> None:
    """A summary of one-letter words, cut where the parent's budget ends, still leaves room for
    the "continued" line: the description is at most 4,096 characters, whatever the parity."""
    digest = await _sample(core)
    words = lead + " " + " ".join("a" * 3000)
    summary = Section("summary", "📊 Daily summary", (Paragraph((Text(words),)),))
    post = render_discord(dataclasses.replace(digest, sections=(summary, *digest.sections[1:])))
    validate(post)
    description = post.parent.embeds[0].description
    assert description.endswith("*… continued in the thread*")
    assert len(description) >= 4090


async def test_notes_are_shown_escaped(core: ReportCore) -> None:
    """Degradation notes appear in a field, escaped like any other text."""
    digest = dataclasses.replace(await _sample(core), notes=("hot discussions failed: <@1> *x*",))
    fields = render_discord(digest).parent.embeds[0].fields
    assert fields[-1].name == "Notes"
    assert fields[-1].value == "- hot discussions failed: \\<@1\\> \\*x\\*"


async def test_empty_section_is_never_blank(core: ReportCore) -> None:
    """A section without blocks is still posted, with a dash."""
    digest = await _sample(core)
    empty = dataclasses.replace(digest, sections=(*digest.sections, Section("x", "Extra", ())))
    assert render_discord(empty).thread[-1].embeds[0].description == "—"


@pytest.mark.parametrize(("days", "lang"), [(1, "en"), (1, "zh"), (7, "zh")])
def test_digests_fit_discord_and_keep_every_appendix_item(days: int, lang: str) -> None:
    """Every message of 1- and 7-day digests is within limits; no appendix item is lost."""
    _assert_complete(synthetic_digest(days, lang))


@pytest.mark.slow
def test_thirty_day_digest_is_a_short_thread_pointing_to_the_full_lists() -> None:
    """A 30-day digest: at most 15 messages within limits, each list's first items linked,
    the rest counted with the site page where the full list is."""
    digest = synthetic_digest(30, "en")
    assert len(_appendix_numbers(digest)) > 5000
    post = render_discord(digest, site_url="https://reports.example.org")
    validate(post)
    assert len(post.messages) <= 15
    assert all(problems(message.to_dict()) == [] for message in post.messages)
    text = "\n".join(e.description for m in post.thread for e in m.embeds)
    linked = {int(n) for n in re.findall(r"\[#(\d+) ", text)}
    for _key, items in digest.lists:
        assert {i.number for i in items[:TOP_ENTRIES]} <= linked
        assert f"and {len(items) - TOP_ENTRIES} more" in text
    assert text.count("](<https://reports.example.org/vllm-project/vllm/>)") == 5


def test_answer_is_split_into_text_messages_with_its_window() -> None:
    """A long answer becomes messages of at most 2,000 characters; the window is a footnote."""
    start = datetime(2026, 1, 25, tzinfo=UTC)
    window = Window(start, start + timedelta(days=7), "UTC", "7d")
    items = tuple(
        (ItemRef(n, f"https://github.com/o/r/pull/{n}", "x" * 80), Text(" improves ROCm"))
        for n in range(100)
    )
    answer = Answer(
        repo="o/r",
        question="what's new in ROCm?",
        window=window,
        lang="en",
        blocks=(Paragraph((Text("Recent ROCm work:"),)), BulletList(items)),
        repo_url="https://github.com/o/r",
    )
    specs = render_answer(answer)
    assert len(specs) > 3
    assert all(problems(s.to_dict()) == [] for s in specs)
    assert specs[-1].content.endswith("-# 2026-01-25 00:00 (UTC) ~ 2026-02-01 00:00 (UTC)")
    joined = "\n".join(s.content for s in specs)
    assert all(f"[#{n} " in joined for n in range(100))


@pytest.mark.parametrize(("lang", "heading"), [("en", "🔁 Follow-ups"), ("zh", "🔁 后续进展")])
def test_follow_ups_are_a_message_of_the_thread(lang: str, heading: str) -> None:
    """The previous window's follow-ups are posted in the thread, with their links."""
    from tests.support.followups import FIX, HOT_FIXED, followup_digest

    post = render_discord(followup_digest(lang))
    text = " ".join(
        m.content + " ".join(f"{e.title} {e.description}" for e in m.embeds) for m in post.thread
    )
    assert heading in text
    assert f"/issues/{HOT_FIXED}>)" in text and f"/pull/{FIX}>)" in text


def test_sections_that_fell_back_are_counted_in_the_source_field() -> None:
    """The parent embed's source field says how many sections fell back, and why."""
    digest = synthetic_digest(1)
    fell = tuple(
        dataclasses.replace(s, fallback="language") if s.id == "trends" else s
        for s in digest.sections
    )
    fields = render_discord(dataclasses.replace(digest, sections=fell)).parent.embeds[0].fields
    assert any("Template fallbacks: language 1" in f.value for f in fields)
    plain = render_discord(digest).parent.embeds[0].fields
    assert not any("fallbacks" in f.value for f in plain)


async def test_no_rendered_digest_links_outside_github(core: ReportCore) -> None:
    """Addresses in excerpts and titles are inline code: every masked link goes to GitHub, and
    no address is left where Discord would link it."""
    post = render_discord(with_outside_text(await _sample(core)))
    text = "\n".join(t for m in post.messages for t in texts(m.to_dict()))
    targets = re.findall(r"\]\(<([^>]+)>\)", text)
    assert targets and all(GITHUB.match(url) for url in targets)
    for address in ADDRESSES:
        assert f"`{address}`" in text
    assert not addresses(re.sub(r"`[^`]*`|\]\(<[^>]*>\)", " ", text))


@pytest.mark.parametrize(
    ("lang", "said"), [("zh", "mgoin>)（维护者"), ("en", "mgoin>) (maintainer")]
)
def test_people_are_shown_with_their_role(lang: str, said: str) -> None:
    """The Discord thread says the role of the people a hot discussion names."""
    from tests.support.analysis_sample import build_digest, sample_analysis

    post = render_discord(build_digest(sample_analysis(), lang))
    text = " ".join(
        m.content + " ".join(f"{e.title} {e.description}" for e in m.embeds) for m in post.thread
    )
    assert said in text
