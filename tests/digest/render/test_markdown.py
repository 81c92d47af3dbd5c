"""Markdown rendering: golden files of the real sample, escaping of untrusted text."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from digest.analysis.addresses import addresses
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
from digest.render.markdown import escape, inline, line, render_blocks, render_markdown
from tests.support.analysis_sample import build_digest, sample_analysis
from tests.support.outside import ADDRESSES, GITHUB, with_outside_text

GOLDEN = Path(__file__).parent / "golden"
COMMONMARK = MarkdownIt("commonmark").enable(["table", "strikethrough"])  # GitHub's, bar autolinks
SYNTAX = st.sampled_from("aZ9 \n\t\x00_*~`\\|-+=#>.):@＠[]()!<&;") | st.sampled_from(
    ["123456789.", "1234567890)", "&amp;", "&#64;", "&#x40;", "<b>", "<https://e.x>", "@ann"]
)  # Markdown's syntax, so that hostile text is made of it
HOSTILE = st.text(max_size=60) | st.lists(SYNTAX, max_size=24).map("".join)


def _read_back(markdown: str) -> list[tuple[str, str]]:
    """What a Markdown parser makes of ``markdown``: its (token, content) pairs, inline ones
    flattened into the paragraph that holds them."""
    found: list[tuple[str, str]] = []
    for token in COMMONMARK.parse(markdown):
        children = token.children or []
        found.extend((child.type, child.content) for child in children)
        if not children:
            found.append((token.type, token.content))
    return found


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


@given(text=HOSTILE)
@example(text="123456789. ~~gone~~ _it_ &amp; <b>x</b> | a\n- b")
def test_escaped_text_reads_back_as_itself(text: str) -> None:
    """Whatever GitHub text holds, a Markdown parser reads one paragraph of that very text, its
    addresses as code and nothing else."""
    flat = " ".join(text.replace("\x00", " ").split())
    found = _read_back(line((Text(flat),)))
    if not flat:
        assert found == []
        return
    assert found[0] == ("paragraph_open", "") and found[-1] == ("paragraph_close", "")
    inner = found[1:-1]
    assert "".join(content for _, content in inner) == flat
    assert [c for kind, c in inner if kind != "text"] == [
        c for kind, c in inner if c in addresses(c)
    ]
    assert {kind for kind, _ in inner} <= {"text", "code_inline"}


@given(text=HOSTILE)
def test_escaped_text_mentions_nobody(text: str) -> None:
    """No ``@`` of GitHub text is left where GitHub would read a mention."""
    assert not re.search(r"(?<!\\)@[\w!]", escape(text).replace("\\\\", ""))


@given(title=HOSTILE, url=st.sampled_from(["https://github.com/o/r/pull/1", "javascript:x()"]))
def test_links_come_only_from_references(title: str, url: str) -> None:
    """An item's title never adds a link: one link to an http(s) URL, none to anything else."""
    links = [t for t, _ in _read_back(line((ItemRef(1, url, title),))) if t == "link_open"]
    assert len(links) == (1 if url.startswith("https:") else 0)


def test_readable_escaping() -> None:
    """Snake_case words and plain punctuation stay readable."""
    assert escape("get_supported_kernel_block_sizes (v0.15.0) & more") == (
        "get_supported_kernel_block_sizes (v0.15.0) & more"
    )


def test_escape_keeps_plain_words_readable() -> None:
    """Ordinary words, dashes and tildes pass through; spacing is kept at the edges."""
    assert escape(" 2 merged PRs — ok ~ fine ") == " 2 merged PRs — ok ~ fine "
    assert escape("a_b*c") == "a_b\\*c"
    assert escape("_a_ __init__") == r"\_a\_ \_\_init\_\_"


def test_mentions_are_neutralised() -> None:
    """An ``@login`` in GitHub text pings nobody (``＠`` mentions no one); a link keeps its @."""
    spans = (
        Text("thanks @octocat, ＠everyone and @!channel; mail a@b.io"),
        UserRef("x", "https://github.com/x"),
    )
    assert render_blocks((Paragraph(spans),)) == (
        r"thanks \@octocat, ＠everyone and \@!channel; mail `a@b.io`[@x](https://github.com/x)"
    )


def test_tables_entities_and_strikethrough_stay_text() -> None:
    """Pipes, entities and tildes next to text are escaped; a tilde between spaces is not."""
    assert escape("a | b &amp; &#64;x ~~gone~~ ~y~ ~ z") == (
        r"a \| b \&amp; \&#64;x \~\~gone\~\~ \~y\~ ~ z"
    )


def test_code_spans_outlast_their_backticks() -> None:
    """A code span's fence is longer than any run of backticks inside it; blank code is nothing."""
    assert render_blocks((Paragraph((Text("a``b", "code"),)),)) == "``` a``b ```"
    assert render_blocks((Paragraph((Text("x", "code"), Text(" \x00 ", "code"))),)) == "`x`"


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
    assert r"- trends unavailable: \<timeout\>" in tail


def test_no_rendered_digest_links_outside_github() -> None:
    """Addresses in excerpts and titles are code spans: every link of the page goes to GitHub,
    and the names that only look like hosts stay plain text."""
    digest = with_outside_text(build_digest(sample_analysis(), "en"))
    tokens = [
        t for block in COMMONMARK.parse(render_markdown(digest)) for t in block.children or []
    ]
    targets = [t.attrs["href"] for t in tokens if t.type == "link_open"]
    assert targets and all(GITHUB.match(str(url)) for url in targets)
    code = {t.content for t in tokens if t.type == "code_inline"}
    assert set(ADDRESSES) <= code
    assert not code & {"torch.compile", "config.json"}
    assert all(
        not re.search(r"https?://|www\.|@example", t.content) for t in tokens if t.type == "text"
    )


def test_original_words_trail_the_line_quoted_and_escaped() -> None:
    """A comment's original words follow its act line as a short italic quote, escaped, an
    address in them as code."""
    words = "Rebased *again* on main; see evil.example/fix.sh " + "and more words " * 10
    shown = line((Text("复现确认。"), Text(words, "original")))
    assert shown.startswith("复现确认。 *“Rebased \\*again\\* on main; see*")
    assert "`evil.example/fix.sh`" in shown and shown.endswith("…”*")
