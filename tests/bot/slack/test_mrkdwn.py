"""Untrusted text rendered as inert mrkdwn."""

from __future__ import annotations

import pytest

from bot.slack.mrkdwn import WORD_JOINER, escape, link, plain


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<!channel> hi", "&lt;!channel&gt; hi"),
        ("<!here>", "&lt;!here&gt;"),
        ("ping <@U123ABC>", "ping &lt;@U123ABC&gt;"),
        ("<#C123|general>", "&lt;#C123|general&gt;"),
        ("<https://evil.example|github.com/x>", "&lt;https://evil.example|github.com/x&gt;"),
        ("a & b", "a &amp; b"),
        ("&lt; already", "&amp;lt; already"),
        ("<!date^1392734382^{date}|Feb 18>", "&lt;!date^1392734382^{date}|Feb 18&gt;"),
    ],
)
def test_escape_defeats_control_sequences(raw: str, expected: str) -> None:
    """Every Slack control sequence comes out as visible text, never markup."""
    assert escape(raw) == expected
    assert "<" not in escape(raw) and ">" not in escape(raw)


@pytest.mark.parametrize("word", ["@channel", "@here", "@everyone", "@HERE"])
def test_escape_breaks_bare_broadcasts(word: str) -> None:
    """A bare @channel / @here / @everyone gets a word joiner so it can never broadcast."""
    out = escape(f"hey {word} look")
    assert word not in out
    assert out == f"hey @{WORD_JOINER}{word[1:]} look"


def test_escape_keeps_ordinary_at_words() -> None:
    """Other @words (logins, e-mail addresses) are left alone."""
    assert escape("thanks @hereford and a@b.c") == "thanks @hereford and a@b.c"


def test_link_escapes_label_and_url() -> None:
    """A link's label cannot close the link early or start a new one."""
    out = link("https://github.com/o/r/pull/1?a=1&b=2", "#1 a|b > <!here>")
    assert out == ("<https://github.com/o/r/pull/1?a=1&amp;b=2|#1 a\uff5cb &gt; &lt;!here&gt;>")
    assert out.count("<") == 1 and out.count(">") == 1 and out.count("|") == 1


def test_link_rejects_non_http_urls() -> None:
    """A javascript:, mailto: or garbage URL renders as plain escaped text."""
    assert link("javascript:alert(1)", "<b>") == "&lt;b&gt;"
    assert link("slack://channel?id=C1", "x") == "x"


def test_link_percent_encodes_delimiters_in_url() -> None:
    """A URL carrying | or > cannot forge a label."""
    out = link("https://ok.example/a|<!channel>", "ok")
    assert out == "<https://ok.example/a%7C%3C!channel%3E|ok>"


def test_plain_cuts_at_a_word() -> None:
    """plain_text fields are shortened at a word boundary with an ellipsis."""
    text = "word " * 60
    out = plain(text, 150)
    assert len(out) <= 150 and out.endswith("word…")
