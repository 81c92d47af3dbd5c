"""Block Kit rendering of digests: layout, escaping, golden files."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.slack.limits import violations
from bot.slack.render import render_answer, render_slack
from digest.analysis.addresses import addresses
from digest.models import (
    Answer,
    BulletList,
    Counts,
    Digest,
    ItemRef,
    Paragraph,
    Section,
    Text,
    UserRef,
    Window,
)
from tests.bot.slack.conftest import HOSTILE_TITLE, sample_digest
from tests.support.outside import GITHUB, TEXT_ADDRESSES, with_outside_text

GOLDEN = Path(__file__).parent / "golden"
START = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
WINDOW = Window(START, START + timedelta(days=1), "Asia/Shanghai", "2026-03-10")


def _digest(sections: tuple[Section, ...], notes: tuple[str, ...] = ()) -> Digest:
    return Digest(
        repo="vllm-project/vllm",
        window=WINDOW,
        lang="en",
        counts=Counts(38, 28, 115, 34, 42),
        sections=sections,
        generated_at=START + timedelta(days=1, minutes=3),
        synced_at=START + timedelta(days=1, minutes=2),
        repo_url="https://github.com/vllm-project/vllm",
        display_name="vLLM",
        notes=notes,
    )


def _summary() -> Section:
    return Section("summary", "📊 Daily summary", (Paragraph((Text("A busy day."),)),))


def _hostile_section() -> Section:
    ref = ItemRef(7, "https://github.com/vllm-project/vllm/pull/7", HOSTILE_TITLE)
    user = UserRef("here", "https://github.com/here")
    return Section(
        "hot",
        "💬 Hot discussions",
        (BulletList(((ref, Text(" by "), user, Text(": <!here> said <@U999> @channel")),)),),
    )


def _all_mrkdwn(messages: tuple[dict[str, Any], ...]) -> str:
    parts = []
    for message in messages:
        parts.append(message["text"])
        for block in message.get("blocks", ()):
            if block["type"] == "context":
                parts += [e["text"] for e in block["elements"]]
            elif block["type"] == "section":
                parts.append(block["text"]["text"])
    return "\n".join(parts)


def test_parent_has_header_counts_summary_and_exact_window() -> None:
    """The parent holds the title, the five counts, the summary and the window with provenance."""
    post = render_slack(_digest((_summary(), _hostile_section())))
    blocks = post.parent["blocks"]
    assert blocks[0] == {
        "type": "header",
        "text": {
            "type": "plain_text",
            "emoji": True,
            "text": "vLLM Development Report - 2026-03-10",
        },
    }
    assert blocks[1]["text"]["text"] == (
        "New issues 38 | Closed issues 28 | New PRs 115 | Merged PRs 34 | Closed unmerged PRs 42"
    )
    assert blocks[2]["text"]["text"] == "*📊 Daily summary*\nA busy day."
    context = blocks[-1]["elements"][0]["text"]
    assert "2026-03-10 11:21 (UTC+8) ~ 2026-03-11 11:21 (UTC+8)" in context
    assert "<https://github.com/vllm-project/vllm|vllm-project/vllm>" in context
    assert "2026-03-11 03:23 UTC" in context and "template" in context
    assert [r["blocks"][0]["text"]["text"] for r in post.replies] == ["💬 Hot discussions"]


def test_hostile_titles_are_neutralised() -> None:
    """<!channel>, <@U…>, @here and a spoofed link in GitHub text render as inert text."""
    text = _all_mrkdwn(render_slack(_digest((_summary(), _hostile_section()))).messages)
    for forbidden in (
        "<!channel>",
        "<!here>",
        "<@U0123ABCD>",
        "<@U999>",
        "<https://evil",
        "@here",
        "@channel",
        "@everyone",
    ):
        assert forbidden not in text
    assert "&lt;!channel&gt;" in text and "&lt;https://evil.example/x\uff5cgithub.com" in text
    assert "<https://github.com/here|@\u2060here>" in text


def test_notes_are_shown_on_the_parent() -> None:
    """A degraded part is said on the parent message, escaped."""
    post = render_slack(_digest((_summary(),), notes=("hot discussions unavailable: <timeout>",)))
    context = [b for b in post.parent["blocks"] if b["type"] == "context"]
    assert context[0]["elements"][0]["text"] == "⚠️ hot discussions unavailable: &lt;timeout&gt;"


def test_machine_written_sections_say_so() -> None:
    """A section written by a model carries its writer under it."""
    section = Section("trends", "🔥 Trends", (Paragraph((Text("x"),)),), writer="llm:qwen3")
    post = render_slack(_digest((_summary(), section)))
    assert post.replies[0]["blocks"][-1]["elements"][0]["text"] == "Written by: llm:qwen3"


def test_huge_summary_moves_to_the_thread() -> None:
    """A summary too long for the parent becomes the first reply; the parent still fits."""
    long = Section(
        "summary", "📊 Daily summary", tuple(Paragraph((Text("word " * 500),)) for _ in range(12))
    )
    post = render_slack(_digest((long,)))
    assert all(not violations(m) for m in post.messages)
    assert post.replies[0]["blocks"][0]["text"]["text"] == "📊 Daily summary"
    assert len(post.parent["blocks"]) == 3


def test_answer_quotes_the_question_and_links_items() -> None:
    """An answer shows the question, the linked text and the window searched."""
    ref = ItemRef(1, "https://github.com/o/r/pull/1", "x")
    answer = Answer(
        repo="vllm-project/vllm",
        question="what's new in <!here> ROCm?",
        window=WINDOW,
        lang="en",
        blocks=(Paragraph((ref,)),),
        repo_url="https://github.com/vllm-project/vllm",
    )
    post = render_answer(answer)
    text = _all_mrkdwn(post.messages)
    assert "> *what's new in &lt;!here&gt; ROCm?*" in text
    assert "<https://github.com/o/r/pull/1|#1 x>" in text
    assert "2026-03-10 11:21 (UTC+8) ~ 2026-03-11 11:21 (UTC+8)" in text
    assert post.replies == ()


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_golden_render_of_the_real_sample(lang: str) -> None:
    """The Slack render of the real sample matches its golden file (UPDATE_GOLDEN=1 rewrites)."""
    post = render_slack(await sample_digest(lang))
    assert all(not violations(m) for m in post.messages)
    rendered = (
        json.dumps(
            {"parent": post.parent, "replies": list(post.replies)}, ensure_ascii=False, indent=1
        )
        + "\n"
    )
    path = GOLDEN / f"vllm-2026-01-31.{lang}.json"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(rendered, "utf-8")
    assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_text("utf-8")


@pytest.mark.parametrize(("lang", "heading"), [("en", "🔁 Follow-ups"), ("zh", "🔁 后续进展")])
def test_follow_ups_are_a_reply_of_the_thread(lang: str, heading: str) -> None:
    """The previous window's follow-ups are posted in the thread, with their links."""
    from tests.support.followups import FIX, HOT_FIXED, followup_digest

    post = render_slack(followup_digest(lang))
    text = json.dumps([reply["blocks"] for reply in post.replies], ensure_ascii=False)
    assert heading in text
    assert f"/issues/{HOT_FIXED}|" in text and f"/pull/{FIX}|" in text


def test_sections_that_fell_back_are_counted_on_the_parent() -> None:
    """The parent says how many model sections fell back to the template, and why."""
    fell = Section("trends", "🔥 Trends", (Paragraph((Text("x"),)),), fallback="echo")
    post = render_slack(_digest((_summary(), fell)))
    assert "Template fallbacks: echo 1" in _all_mrkdwn((post.parent,))
    assert "fallbacks" not in _all_mrkdwn((render_slack(_digest((_summary(),))).parent,))


async def test_no_rendered_digest_links_outside_github() -> None:
    """Addresses in excerpts are code and every link goes to GitHub; each mrkdwn text goes out
    ``verbatim``, so Slack links no bare domain of its own accord."""
    post = render_slack(with_outside_text(await sample_digest("en")))
    text = _all_mrkdwn(post.messages)
    targets = re.findall(r"<([^|>]+)[|>]", text)
    assert targets and all(GITHUB.match(url) for url in targets)
    for address in TEXT_ADDRESSES:
        assert f"`{address}`" in text
    assert not addresses(re.sub(r"`[^`]*`|<[^>]*>", " ", text))
    objects = [
        obj
        for message in post.messages
        for block in message["blocks"]
        for obj in [block.get("text"), *block.get("elements", ())]
        if isinstance(obj, dict) and obj.get("type") == "mrkdwn"
    ]
    assert objects and all(obj["verbatim"] is True for obj in objects)


@pytest.mark.parametrize(
    ("lang", "said"), [("zh", "|@mgoin>（维护者"), ("en", "|@mgoin> (maintainer")]
)
async def test_people_are_shown_with_their_role(lang: str, said: str) -> None:
    """The Slack thread says the role of the people a hot discussion names."""
    post = render_slack(await sample_digest(lang))
    assert said in json.dumps(list(post.replies), ensure_ascii=False)


def test_original_words_trail_the_line_quoted_and_escaped() -> None:
    """A comment's original words follow its act line as a short italic quote, escaped."""
    from bot.slack.render import span_atoms

    words = "Rebased <!here> on main " + "and more words " * 10
    shown = "".join(span_atoms((Text("复现确认。"), Text(words, "original"))))
    assert shown.startswith("复现确认。 _“Rebased &lt;!here&gt; on main and more words")
    assert shown.endswith("…”_") and "<!here>" not in shown
