"""Markdown rendering: golden files of the real sample, escaping of untrusted text."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from digest.models import (
    BulletList,
    ItemRef,
    Paragraph,
    Section,
    Subheading,
    Text,
    Usage,
    UserRef,
)
from digest.render.markdown import escape, inline, render_blocks, render_markdown
from tests.support.analysis_sample import build_digest, sample_analysis

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_golden(lang: str) -> None:
    """The sample renders exactly as the golden file (UPDATE_GOLDEN=1 rewrites it)."""
    path = GOLDEN / f"vllm-2026-01-31.{lang}.md"
    text = render_markdown(build_digest(sample_analysis(), lang))
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, "utf-8")
    assert text == path.read_text("utf-8")


def test_header_lines() -> None:
    """Title, window and counts lines come first, as in the reference report."""
    lines = render_markdown(build_digest(sample_analysis(), "zh")).splitlines()
    assert lines[0] == "# vLLM 开发动态报告 - 2026-01-31"
    assert lines[2] == "时间窗口：2026-01-31 11:44 (UTC+8) ~ 2026-02-01 11:44 (UTC+8)"
    assert lines[4] == "新 Issue 3 | 关闭 Issue 2 | 新 PR 4 | 合并 PR 2 | 关闭未合并 PR 0"
    assert "## 📊 每日开发状态摘要" in lines


def test_links() -> None:
    """Items render as [#N title](url), people as [@login](url)."""
    ref = ItemRef(12, "https://github.com/o/r/issues/12", "Fix [x] *now*")
    assert inline(ref) == r"[#12 Fix \[x\] \*now\*](https://github.com/o/r/issues/12)"
    assert (
        inline(ItemRef(3, "https://github.com/o/r/pull/3")) == "[#3](https://github.com/o/r/pull/3)"
    )
    assert inline(UserRef("a_b", "https://github.com/a_b")) == "[@a_b](https://github.com/a_b)"


@pytest.mark.parametrize(
    "evil",
    [
        "[click](https://evil.example)",
        "<img src=x onerror=alert(1)>",
        "<script>alert(1)</script>",
        "**bold** _it_ `code`",
        "line\n# Heading\n> quote",
        "![img](https://evil.example/x.png)",
    ],
)
def test_untrusted_text_cannot_inject(evil: str) -> None:
    """A hostile title stays one line of plain text: no link, image, HTML, heading or emphasis."""
    out = render_blocks((Paragraph((Text(evil),)), BulletList(((Text(evil),),))))
    assert "](" not in out.replace("\\](", "")
    assert "<" not in out.replace("\\<", "")
    assert "\n#" not in out and "\n>" not in out
    assert "**bold**" not in out and "`code`" not in out.replace("\\`", "")
    assert len(out.split("\n\n")) == 2


def test_line_starts_are_guarded() -> None:
    """Text starting like a heading, list or quote does not become one."""
    assert render_blocks((Paragraph((Text("# not a heading"),)),)) == r"\# not a heading"
    assert render_blocks((Paragraph((Text("1. not a list"),)),)) == r"1\. not a list"
    assert render_blocks((BulletList(((Text("- x"),),)),)) == r"- \- x"


def test_readable_escaping() -> None:
    """Snake_case words and plain punctuation stay readable."""
    assert escape("get_supported_kernel_block_sizes (v0.15.0) & more") == (
        "get_supported_kernel_block_sizes (v0.15.0) & more"
    )


def test_subheading_and_styles() -> None:
    """Subheadings are ### lines; bold and code spans keep their style."""
    out = render_blocks((Subheading("Group"), Paragraph((Text("B", "bold"), Text("c`d", "code")))))
    assert out == "### Group\n\n**B**`` c`d ``"


def test_emphasis_keeps_edge_spaces_outside_its_marks() -> None:
    """A bold label ending in a space ("Takeaway: ") stays bold: no space before the closing **."""
    spans = (Text("Takeaway: ", "bold"), Text("text and "), Text(" aside ", "italic"))
    assert render_blocks((Paragraph(spans),)) == "**Takeaway:** text and  *aside*"


def test_footer_provenance() -> None:
    """The footer names the writers, sync time, tokens and every note."""
    digest = build_digest(sample_analysis(), "en")
    llm = Section("hot", "💬 Hot discussions", (Paragraph((Text("x"),)),), writer="llm:m")
    digest = dataclasses.replace(
        digest,
        sections=(*digest.sections[:2], llm, *digest.sections[3:]),
        usage=Usage(100, 23),
        notes=("trends unavailable: <timeout>",),
    )
    tail = render_markdown(digest).split("\n---\n", 1)[1]
    assert "Written by: template, llm:m" in tail
    assert "Data synced: 2026-02-01 11:49 (UTC+8)" in tail
    assert "Tokens: 123" in tail
    assert r"- trends unavailable: \<timeout>" in tail
