"""An answer as Markdown (for the terminal, in the one dialect of ``digest.render.markdown``)
and as JSON. Pure functions of the model."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from digest.i18n import t
from digest.models import Answer, Block, BulletList, Inline, Paragraph, Subheading, UserRef
from digest.render.json import block_json, window_json
from digest.render.markdown import PointerSyntax, escape, inline, line, link
from digest.windows import format_window


def _span(span: Inline, syntax: PointerSyntax) -> str:
    if isinstance(span, UserRef):  # people by name, as the answer's sentences read
        return link(escape(span.login), span.url)
    return inline(span, syntax)


def _block(block: Block, syntax: PointerSyntax) -> str:
    write = partial(_span, syntax=syntax)
    if isinstance(block, Paragraph):
        return line(block.spans, write)
    if isinstance(block, Subheading):
        return f"**{escape(block.text)}**"
    if isinstance(block, BulletList):
        return "\n".join(f"- {line(entry, write)}" for entry in block.items)
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
