"""An answer as Markdown (for the terminal) and as JSON. Pure functions of the model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from digest.i18n import t
from digest.models import (
    Answer,
    Block,
    BulletList,
    Inline,
    ItemRef,
    Paragraph,
    Pointer,
    Subheading,
    UserRef,
)
from digest.render.json import block_json, window_json
from digest.render.markdown import emphasis
from digest.windows import format_window

_SPECIAL = re.compile(r"([\\`*_\[\]<>|]|~(?=~))")
_MENTION = re.compile(r"([@＠])(?=[\w!])")
_SAFE_URL = re.compile(r"^https?://[^\s<>\"'`]+$", re.I)
_SPACES = re.compile(r"\s+")
_LINE_START = re.compile(r"^(\s*)([#+=-]|\d+[.)])")


def escape(text: str) -> str:
    """``text`` as literal Markdown: no emphasis, links, HTML, tables or mentions."""
    flat = _SPACES.sub(" ", text.replace("\x00", " "))
    flat = _SPECIAL.sub(r"\\\1", flat)
    flat = _MENTION.sub(r"\\\1", flat)
    return _LINE_START.sub(r"\1\\\2", flat)


def _url(url: str) -> str:
    if not _SAFE_URL.match(url):
        return ""
    return url.replace("(", "%28").replace(")", "%29")


def _code(text: str) -> str:
    flat = " ".join(text.replace("\x00", " ").split())
    if not flat:
        return ""
    fence = "``" if "`" in flat else "`"
    pad = " " if flat.startswith("`") or flat.endswith("`") or fence == "``" else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


PointerSyntax = Callable[[Pointer], str]


def _span(span: Inline, syntax: PointerSyntax) -> str:
    if isinstance(span, Pointer):
        return _code(syntax(span))
    if isinstance(span, ItemRef):
        label = f"#{span.number}" + (f" {escape(span.title)}" if span.title else "")
        url = _url(span.url)
        return f"[{label}]({url})" if url else label
    if isinstance(span, UserRef):
        url = _url(span.url)
        name = escape(span.login)
        return f"[{name}]({url})" if url else name
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


def spans_markdown(spans: tuple[Inline, ...], syntax: PointerSyntax) -> str:
    """Inline spans as one line of Markdown, pointers written in ``syntax``."""
    return "".join(_span(span, syntax) for span in spans).strip()


def _block(block: Block, syntax: PointerSyntax) -> str:
    if isinstance(block, Paragraph):
        return spans_markdown(block.spans, syntax)
    if isinstance(block, Subheading):
        return f"**{escape(block.text)}**"
    if isinstance(block, BulletList):
        return "\n".join(f"- {spans_markdown(entry, syntax)}" for entry in block.items)
    return ""


def render_answer_markdown(answer: Answer, syntax: PointerSyntax) -> str:
    """The answer as Markdown: the question, the window searched, the blocks, the notes;
    ``syntax`` writes a pointer as the command that runs it where the answer is read."""
    lang = answer.lang
    lines = [
        f"### {escape(answer.question) or t('answer.question', lang)} · {escape(answer.repo)}",
        f"*{t('answer.searched', lang)}: {format_window(answer.window)}*",
        "",
    ]
    for block in answer.blocks:
        text = _block(block, syntax)
        if text:
            lines.extend([text, ""])
    if answer.writer.startswith("llm:"):
        model = escape(answer.writer.removeprefix("llm:"))
        lines.extend([f"*{t('answer.credit', lang, model=model)}*", ""])
    for note in answer.notes:
        lines.append(f"> {t('answer.note', lang)}: {escape(note)}")
    return "\n".join(lines).rstrip() + "\n"


def answer_to_dict(answer: Answer) -> dict[str, Any]:
    """The answer as plain JSON-ready data."""
    window = answer.window
    return {
        "type": "answer",
        "repo": answer.repo,
        "repo_url": answer.repo_url,
        "question": answer.question,
        "lang": answer.lang,
        "topic": answer.topic,
        "writer": answer.writer,
        "window": {**window_json(window), "text": format_window(window)},
        "cites": list(answer.cites),
        "blocks": [block_json(b) for b in answer.blocks],
        "notes": list(answer.notes),
    }


def render_answer_json(answer: Answer) -> str:
    """The answer as indented JSON."""
    return json.dumps(answer_to_dict(answer), ensure_ascii=False, indent=2)
