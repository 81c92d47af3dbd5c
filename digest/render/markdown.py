"""GitHub-flavoured Markdown: the one dialect for every Markdown output, and the digest in it.

Pure functions of the model. Untrusted text is escaped where Markdown or GitHub would read it:
it never becomes emphasis, code, a link, an image, HTML, an entity, a table, a strikethrough,
a mention, or (at the start of a line) a heading, quote, list or rule. What Markdown would not
read stays as written (``snake_case``, ``ok ~ fine``). An address in it (``evil.example/fix.sh``,
``dev@example.com``) becomes a code span (``digest.render.unlinked``), which no Markdown links.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, urlsplit

from digest.i18n import counts_lines, digest_title, fallbacks_text, t
from digest.models import (
    Block,
    Digest,
    Inline,
    ItemRef,
    Link,
    Paragraph,
    Pointer,
    Section,
    Subheading,
    Text,
    UserRef,
)
from digest.render.chat import trailing
from digest.render.unlinked import unlinked
from digest.windows import format_moment, format_window

_SPECIAL = re.compile(r"([\\`*\[\]<>|])")
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")  # intraword ``_`` is inert
_TILDE = re.compile(r"(?<! )~|~(?! )")  # a tilde between spaces cannot strike through
_ENTITY = re.compile(r"&(?=#?\w+;)")
_MENTION = re.compile(r"@(?=[\w!])")  # GitHub mentions with an ASCII @ only
_LINE_START = re.compile(r"^(\s*)([#+=-]|\d{1,9}(?=[.)]))")
_WHITESPACE = re.compile(r"\s+")
_TICKS = re.compile(r"`+")
_URL_SAFE = ":/?#@!$&'*+,;=%-._~"

PointerSyntax = Callable[[Pointer], str]
"""How a front end writes a pointer: the command that runs it where the text is read."""


def escape(text: str) -> str:
    """``text`` safe inside a Markdown line: one line, read as written, nothing interpreted.

    The start of a line is guarded separately (``line``): inside a line ``#`` or ``-`` is text.
    """
    text = _WHITESPACE.sub(" ", text.replace("\x00", " "))
    text = _SPECIAL.sub(r"\\\1", text)
    text = _UNDERSCORE.sub(r"\\_", text)
    text = _TILDE.sub(r"\\~", text)
    text = _ENTITY.sub(r"\\&", text)
    return _MENTION.sub(r"\\@", text)


def _guard_start(line: str) -> str:
    """Escape what would turn the start of a line into a heading, list or rule (``>`` is
    escaped everywhere)."""
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


def code(text: str) -> str:
    """``text`` as one code span (its fence longer than any run of backticks in it), or ``""``."""
    flat = " ".join(text.replace("\x00", " ").split())
    if not flat:
        return ""
    fence = "`" * (max(map(len, _TICKS.findall(flat)), default=0) + 1)
    pad = " " if len(fence) > 1 else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def label_text(text: str) -> str:
    """Untrusted text as the label of a link: escaped, its addresses as code spans."""
    return "".join(
        code(span.text) if span.style == "code" else escape(span.text)
        for span in unlinked((Text(text),))
        if isinstance(span, Text)
    )


def link(label: str, url: str) -> str:
    """``[label](url)``, ``label`` already Markdown; the label alone when the URL is unusable."""
    target = safe_url(url)
    return f"[{label}]({target})" if target else label


def inline(span: Inline, pointer: PointerSyntax | None = None) -> str:
    """One span as Markdown: escaped text, ``[#123 title](url)`` or ``[@login](url)``; a pointer
    as the code ``pointer`` writes, nothing without one (digests point nowhere)."""
    if isinstance(span, ItemRef):
        text = escape(span.label) + (f" {label_text(span.title)}" if span.title else "")
        return link(text, span.url)
    if isinstance(span, UserRef):
        return link(f"@{escape(span.login)}", span.url)
    if isinstance(span, Link):
        return link(escape(span.text or span.url), span.url)
    if isinstance(span, Pointer):
        return code(pointer(span)) if pointer else ""
    if span.style == "code":
        return code(span.text)
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


def line(spans: tuple[Inline, ...], write: Callable[[Inline], str] = inline) -> str:
    """Spans rendered on one line by ``write``, its start guarded, its addresses unlinked."""
    return _guard_start("".join(write(span) for span in unlinked(trailing(spans))).strip())


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
    source = ", ".join(link(escape(repo), url) for repo, url in digest.sources)
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
    counts = "\n\n".join(counts_lines(digest))
    return f"# {escape(title)}\n\n{window}\n\n{counts}"


def render_markdown(digest: Digest) -> str:
    """The whole digest as GitHub-flavoured Markdown, ending with a newline."""
    parts = [header(digest), *(render_section(s) for s in digest.sections), footer(digest)]
    return "\n\n".join(parts) + "\n"
