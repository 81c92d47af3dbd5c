"""Discord markdown of rich-text spans: untrusted text literal, links only from references."""

from __future__ import annotations

import pytest

from bot.discord.markdown import ZWSP, escape, link, safe_url
from digest.models import ItemRef, Text, UserRef
from tests.support.discord_markdown import render_spans

URL = "https://github.com/vllm-project/vllm/pull/123"


@pytest.mark.parametrize(
    ("hostile", "shown"),
    [
        ("@everyone look", f"@{ZWSP}everyone look"),
        ("ping @here now", f"ping @{ZWSP}here now"),
        ("<@123456> <@&42> <#77>", "\\<@123456\\> \\<@&42\\> \\<#77\\>"),
        ("[github.com/x](https://evil.example)", "\\[github.com/x\\](https://evil.example)"),
        ("**bold** __under__ ~~strike~~", "\\*\\*bold\\*\\* \\_\\_under\\_\\_ \\~\\~strike\\~\\~"),
        ("||spoiler|| `code`", "\\|\\|spoiler\\|\\| \\`code\\`"),
        ("> quote", "\\> quote"),
        ("# heading", "\\# heading"),
        ("- item", "\\- item"),
        ("1. first", "1\\. first"),
        ("a\nb\r\n\n# c", "a b # c"),
        ("back\\slash", "back\\\\slash"),
    ],
)
def test_escape_makes_untrusted_text_literal(hostile: str, shown: str) -> None:
    """Mentions, formatting, masked links, headings and lists in GitHub text stay literal."""
    assert escape(hostile) == shown


def test_item_reference_is_a_masked_link_without_preview() -> None:
    """ItemRef renders as [#123 title](<url>) with its title escaped."""
    span = ItemRef(123, URL, "[ROCm] fix *all* the things")
    assert render_spans((span,)) == f"[#123 \\[ROCm\\] fix \\*all\\* the things](<{URL}>)"


def test_user_reference_is_a_masked_link() -> None:
    """UserRef renders as [@login](<url>), and a login cannot mention a whole server."""
    assert render_spans((UserRef("alice", "https://github.com/alice"),)) == (
        "[@alice](<https://github.com/alice>)"
    )
    assert render_spans((UserRef("everyone", "https://github.com/everyone"),)) == (
        f"[@{ZWSP}everyone](<https://github.com/everyone>)"
    )


def test_unsafe_urls_are_not_linked() -> None:
    """Only http(s) URLs become links; characters that could end a link are encoded."""
    assert link("click", "javascript:alert(1)") == "click"
    assert safe_url("https://github.com/a_(b)>c") == "https://github.com/a_%28b%29%3Ec"


def test_styles_wrap_escaped_text() -> None:
    """Bold, italic and code spans keep their own markers around escaped text."""
    spans = (
        Text("Merged "),
        Text("fast *path*", "bold"),
        Text(" in "),
        Text("a`b", "code"),
        Text(" and "),
        Text("so", "italic"),
    )
    assert render_spans(spans) == "Merged **fast \\*path\\*** in `aˋb` and *so*"


def test_original_words_trail_the_line_quoted_and_escaped() -> None:
    """A comment's original words follow its act line as a short italic quote, escaped, an
    address in them as code."""
    words = "Rebased *again* on main; see evil.example/fix.sh " + "and more words " * 10
    shown = render_spans((Text("复现确认。"), Text(words, "original")))
    assert shown.startswith("复现确认。 *“Rebased \\*again\\* on main; see*")
    assert "`evil.example/fix.sh`" in shown
    assert shown.endswith("…”*") and len(shown) < 160
