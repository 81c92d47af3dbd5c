"""Discord markdown for rich-text spans: untrusted text escaped, links only from references.

Text from GitHub can neither format, mention, nor spoof a link: markdown characters are
backslash-escaped (``[`` and ``]`` so no masked link can form; ``#``, ``-``, ``+`` and the
dot of ``1.`` where a line could start), ``@everyone``/``@here`` get a zero-width space, and
``<`` is escaped so ``<@id>``, ``<#id>``, ``<@&id>`` and ``<t:…>`` stay literal. Only
``ItemRef`` and ``UserRef`` become masked links, with the URL in angle brackets so Discord shows
no preview; an address in text or in a title (``https://evil.example``, ``dev@example.com``) is
inline code, which Discord never links (``digest.render.unlinked``).
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from bot.commands.grammar import command_line
from digest.models import Inline, ItemRef, Link, Pointer, Text, UserRef
from digest.render.chat import trailing
from digest.render.unlinked import unlinked

ZWSP = "\u200b"
_SPECIAL = re.compile(r"([\\*_~`|>\[\]<])")
_MASS = re.compile(r"@(everyone|here)", re.I)
_LINE_START = re.compile(r"^(\s*)(#|[-+]|\d+\.(?=\s|$))")
_SPACES = re.compile(r"\s+")
_URL_UNSAFE = "<>()[] \"'\\`|^{}"


def escape(text: str, *, line_start: bool = True) -> str:
    """``text`` as literal Discord markdown on one line: no formatting, links or mentions.

    ``line_start``: also escape what would start a heading or a list if the text began a line.
    """
    flat = _SPACES.sub(" ", text)
    out = _SPECIAL.sub(r"\\\1", flat)
    out = _MASS.sub(lambda m: f"@{ZWSP}{m[1]}", out)
    return _LINE_START.sub(_unmark, out) if line_start else out


def _unmark(match: re.Match[str]) -> str:
    """A heading or list marker made literal (``1\\.``: a backslash before a digit would show)."""
    lead, mark = match[1], match[2]
    return lead + (mark[:-1] + "\\." if mark.endswith(".") else "\\" + mark)


def neutralize(text: str) -> str:
    """Trusted wording kept as it is, except that it can never mention anyone."""
    flat = _SPACES.sub(" ", text).strip()
    return _MASS.sub(lambda m: f"@{ZWSP}{m[1]}", flat.replace("<", "\\<"))


def safe_url(url: str) -> str | None:
    """``url`` when it is an http(s) URL, with characters that could end a link encoded."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return "".join(quote(c, safe="") if c in _URL_UNSAFE or ord(c) < 33 else c for c in url.strip())


def link(label: str, url: str) -> str:
    """A masked link with an escaped label (its addresses as code); the label alone when the
    URL is unusable."""
    target = safe_url(url)
    text = "".join(
        _code(span.text) if span.style == "code" else escape(span.text, line_start=False)
        for span in unlinked((Text(label),))
        if isinstance(span, Text)
    ).strip()
    return f"[{text}](<{target}>)" if target else text


def _code(text: str) -> str:
    inner = _MASS.sub(lambda m: f"@{ZWSP}{m[1]}", _SPACES.sub(" ", text).replace("`", "ˋ")).strip()
    return f"`{inner}`" if inner else ""


def tokens(span: Inline) -> list[str]:
    """``span`` as Discord markdown tokens; a line may break only at a ``" "`` token."""
    if isinstance(span, ItemRef):
        label = f"{span.label} {span.title}".strip() if span.title else span.label
        return [link(label, span.url)]
    if isinstance(span, UserRef):
        return [link(f"@{span.login}", span.url)]
    if isinstance(span, Link):
        return [link(span.text or span.url, span.url)]
    if isinstance(span, Pointer):
        return tokens(Text(command_line(span), "code"))
    if isinstance(span, Text):
        if span.style == "code":
            code = _code(span.text)
            return [code] if code else []
        if span.style in ("bold", "italic"):
            inner = escape(span.text, line_start=False).strip()
            if not inner:
                return [" "] if span.text else []
            mark = "**" if span.style == "bold" else "*"
            lead = [" "] if span.text[:1].isspace() else []
            tail = [" "] if span.text[-1:].isspace() else []
            return [*lead, f"{mark}{inner}{mark}", *tail]
        return [t for t in re.split(r"( )", escape(span.text)) if t]
    raise TypeError(f"unknown span {span!r}")


def line_tokens(spans: tuple[Inline, ...]) -> list[str]:
    """The tokens of a run of spans, with doubled and edge spaces removed."""
    out: list[str] = []
    for span in unlinked(trailing(spans)):
        for token in tokens(span):
            if token == " " and (not out or out[-1] == " "):
                continue
            out.append(token)
    while out and out[-1] == " ":
        out.pop()
    return out
