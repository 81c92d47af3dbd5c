"""Slack mrkdwn escaping: untrusted text can neither ping anyone nor forge a link."""

from __future__ import annotations

import re

_BROADCAST = re.compile(r"@(channel|here|everyone)\b", re.I)
_URL_UNSAFE = {"|": "%7C", "<": "%3C", ">": "%3E", " ": "%20", "\t": "%09", "\n": "%0A"}
_LABEL_BAR = "\uff5c"  # a full-width bar: a "|" would end the link's URL part
WORD_JOINER = "\u2060"


def escape(text: str) -> str:
    """``text`` as inert mrkdwn: ``& < >`` escaped and ``@channel``-style broadcasts broken up.

    Escaping ``<`` and ``>`` defeats every control sequence (``<!channel>``, ``<!here>``,
    ``<@U123>``, ``<#C123>``, ``<https://evil|github.com>``); the word joiner after ``@`` keeps a
    bare ``@here`` from ever being read as a broadcast.
    """
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BROADCAST.sub(lambda m: "@" + WORD_JOINER + m[1], escaped)


def safe_url(url: str) -> str | None:
    """``url`` ready to sit inside ``<...|...>``, or ``None`` when it is not an http(s) URL."""
    url = url.strip()
    if not url.lower().startswith(("https://", "http://")):
        return None
    for char, code in _URL_UNSAFE.items():
        url = url.replace(char, code)
    return url.replace("&", "&amp;")


def link(url: str, label: str) -> str:
    """A mrkdwn link to ``url`` showing ``label`` (untrusted); plain escaped text for a bad URL."""
    text = escape(label)
    target = safe_url(url)
    if target is None:
        return text
    return f"<{target}|{text.replace('|', _LABEL_BAR)}>"


def plain(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word boundary, for ``plain_text`` fields."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + "…"
