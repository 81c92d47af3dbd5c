"""GitHub-flavoured Markdown of a digest: a pure function, untrusted text escaped."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from digest.i18n import counts_line, digest_title, fallbacks_text, t
from digest.models import (
    Block,
    Digest,
    Inline,
    ItemRef,
    Paragraph,
    Pointer,
    Section,
    Subheading,
    UserRef,
)
from digest.windows import format_moment, format_window

_SPECIAL = re.compile(r"([\\`*\[\]<~])")
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_ENTITY = re.compile(r"&(?=#?\w+;)")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d{1,9}(?=[.)]))")
_WHITESPACE = re.compile(r"\s+")
_URL_SAFE = ":/?#@!$&'*+,;=%-._~"


def escape(text: str) -> str:
    """``text`` safe inside a Markdown line: one line, no emphasis, code, links or HTML.

    Only what Markdown would interpret is escaped (``snake_case`` stays readable); the start of
    a line is guarded separately by ``line``.
    """
    text = _SPECIAL.sub(r"\\\1", _WHITESPACE.sub(" ", text))
    text = _UNDERSCORE.sub(r"\\_", text)
    return _ENTITY.sub(r"\\&", text)


def _guard_start(line: str) -> str:
    """Escape what would turn the start of a line into a heading, quote, list or rule."""
    match = _LINE_START.match(line)
    if not match:
        return line
    lead, mark = match[1], match[2]
    if mark[0].isdigit():
        return f"{lead}{mark}\\{line[match.end() :]}"
    return f"{lead}\\{line[len(lead) :]}"


def safe_url(url: str) -> str | None:
    """An http(s) URL with the characters that could break a link encoded, or ``None``."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return quote(url.strip(), safe=_URL_SAFE)


def _code(text: str) -> str:
    text = _WHITESPACE.sub(" ", text)
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" or text.startswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _link(label: str, url: str) -> str:
    target = safe_url(url)
    return f"[{label}]({target})" if target else label


def inline(span: Inline) -> str:
    """One span as Markdown: escaped text, ``[#123 title](url)`` or ``[@login](url)``."""
    if isinstance(span, ItemRef):
        label = f"#{span.number}" + (f" {escape(span.title)}" if span.title else "")
        return _link(label, span.url)
    if isinstance(span, UserRef):
        return _link(f"@{escape(span.login)}", span.url)
    if isinstance(span, Pointer):  # digests point nowhere: only answers carry pointers
        return ""
    if span.style == "code":
        return _code(span.text)
    text = escape(span.text)
    if not text.strip():
        return text
    if span.style == "bold":
        return emphasis(text, "**")
    if span.style == "italic":
        return emphasis(text, "*")
    return text


def emphasis(text: str, mark: str) -> str:
    """``text`` between ``mark``s, its edge spaces outside them (``**a: **`` is not bold)."""
    core = text.strip()
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    return f"{lead}{mark}{core}{mark}{trail}"


def line(spans: tuple[Inline, ...]) -> str:
    """Spans rendered on one line, its start guarded."""
    return _guard_start("".join(inline(span) for span in spans).strip())


def block(item: Block) -> str:
    """One block as Markdown."""
    if isinstance(item, Subheading):
        return f"### {escape(item.text)}"
    if isinstance(item, Paragraph):
        return line(item.spans)
    return "\n".join(f"- {line(entry)}" for entry in item.items)


def render_blocks(blocks: tuple[Block, ...]) -> str:
    """Blocks separated by blank lines."""
    return "\n\n".join(text for text in (block(b) for b in blocks) if text)


def render_section(section: Section) -> str:
    """A section: its ``##`` heading and its body."""
    body = render_blocks(section.blocks)
    return f"## {escape(section.title)}\n\n{body}" if body else f"## {escape(section.title)}"


def footer(digest: Digest) -> str:
    """Provenance: writers, generation and sync times, tokens, then any notes."""
    lang, tz = digest.lang, digest.window.timezone
    synced = (
        format_moment(digest.synced_at, tz) if digest.synced_at else t("footer.never_synced", lang)
    )
    colon = t("common.colon", lang)
    parts = [
        f"{t('footer.writers', lang)}{colon}{escape(', '.join(digest.writers))}",
        f"{t('footer.generated', lang)}{colon}{format_moment(digest.generated_at, tz)}",
        f"{t('footer.synced', lang)}{colon}{synced}",
    ]
    if digest.usage.total:
        parts.append(f"{t('footer.tokens', lang)}{colon}{digest.usage.total}")
    if digest.fallbacks:
        parts.append(f"{t('footer.fallbacks', lang)}{colon}{escape(fallbacks_text(digest))}")
    source = _link(escape(digest.repo), digest.repo_url)
    parts.append(f"{t('footer.source', lang)}{colon}{source}")
    lines = ["---", "", "*" + " · ".join(parts) + "*"]
    if digest.notes:
        lines += ["", f"**{t('footer.notes', lang)}**"]
        lines += [f"- {_guard_start(escape(note))}" for note in digest.notes]
    return "\n".join(lines)


def header(digest: Digest) -> str:
    """Title, window line and counts line."""
    title = digest_title(digest)
    colon = t("common.colon", digest.lang)
    window = f"{t('report.window', digest.lang)}{colon}{format_window(digest.window)}"
    counts = counts_line(digest.counts, digest.lang)
    return f"# {escape(title)}\n\n{window}\n\n{counts}"


def render_markdown(digest: Digest) -> str:
    """The whole digest as GitHub-flavoured Markdown, ending with a newline."""
    parts = [header(digest), *(render_section(s) for s in digest.sections), footer(digest)]
    return "\n\n".join(parts) + "\n"
