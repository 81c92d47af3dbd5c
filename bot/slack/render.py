"""Block Kit rendering of digests and answers: pure functions of the domain model."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.commands.buttons import Button
from bot.commands.grammar import command_line
from bot.slack.limits import MAX_BLOCKS, MAX_BLOCKS_TEXT, MAX_CONTEXT_ELEMENTS, MAX_HEADER_TEXT
from bot.slack.mrkdwn import escape, link, plain, safe_url
from bot.slack.pack import (
    Unit,
    UnitKind,
    context_block,
    header_block,
    pack_blocks,
    pack_texts,
    section_block,
)
from digest import i18n
from digest.models import (
    Answer,
    Block,
    BulletList,
    Digest,
    Inline,
    ItemRef,
    Lang,
    Link,
    Paragraph,
    Pointer,
    Section,
    Subheading,
    Text,
    UserRef,
)
from digest.render.chat import for_chat, trailing
from digest.render.unlinked import unlinked
from digest.windows import format_window

SlackMessage = dict[str, Any]
_SPACE = re.compile(r"(\s+)")
_STYLE = {"bold": "*", "italic": "_", "code": "`"}
_MAX_STYLED = 300  # a longer styled span is split like plain text, without its style


@dataclass(frozen=True, slots=True)
class SlackPost:
    """A parent message and the replies that go into its thread, each ``text`` + ``blocks``."""

    parent: SlackMessage
    replies: tuple[SlackMessage, ...] = ()

    @property
    def messages(self) -> tuple[SlackMessage, ...]:
        return (self.parent, *self.replies)


def labels(lang: Lang) -> dict[str, str]:
    """The provenance words in ``lang``."""
    return {
        "window": i18n.t("report.window", lang),
        "synced": i18n.t("footer.synced", lang),
        "never": i18n.t("footer.never_synced", lang),
        "written": i18n.t("footer.writers", lang),
        "notes": i18n.t("footer.notes", lang),
    }


def _text_atoms(span: Text) -> list[str]:
    mark = _STYLE.get(span.style, "")
    if mark and span.text.strip() and len(span.text) <= _MAX_STYLED:
        lead = span.text[: len(span.text) - len(span.text.lstrip())]
        trail = span.text[len(span.text.rstrip()) :]
        atoms = [" "] if lead else []
        atoms.append(f"{mark}{escape(span.text.strip())}{mark}")
        return [*atoms, " "] if trail else atoms
    return [escape(part) for part in _SPACE.split(span.text) if part]


def span_atoms(spans: Iterable[Inline]) -> tuple[str, ...]:
    """The mrkdwn of ``spans`` as atoms: escaped words, whitespace runs and whole links; an
    address in text is code, never a link (``digest.render.unlinked``)."""
    atoms: list[str] = []
    for span in unlinked(trailing(spans)):
        if isinstance(span, Text):
            atoms.extend(_text_atoms(span))
        elif isinstance(span, ItemRef):
            label = f"{span.label} {span.title}".strip() if span.title else span.label
            atoms.append(link(span.url, label))
        elif isinstance(span, UserRef):
            atoms.append(link(span.url, f"@{span.login}"))
        elif isinstance(span, Link):
            atoms.append(link(span.url, span.text or span.url))
        elif isinstance(span, Pointer):
            atoms.extend(_text_atoms(Text(command_line(span), "code")))
    return tuple(atoms)


def block_units(blocks: Iterable[Block]) -> list[Unit]:
    """The units of ``blocks``: a paragraph, a bold subheading or one bullet each."""
    units: list[Unit] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            units.append(Unit(UnitKind.PARAGRAPH, span_atoms(block.spans)))
        elif isinstance(block, Subheading):
            units.append(Unit(UnitKind.HEADING, (f"*{escape(block.text.strip())}*",)))
        elif isinstance(block, BulletList):
            units.extend(Unit(UnitKind.BULLET, ("•", " ", *span_atoms(e))) for e in block.items)
    return [u for u in units if u.text]


def _section_blocks(units: list[Unit]) -> list[dict[str, Any]]:
    return [section_block(text) for text in pack_texts(units)]


def _stamp(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _label(word: str, lang: Lang) -> str:
    return word + i18n.t("common.colon", lang)


def provenance(digest: Digest) -> list[str]:
    """The context line of the parent message: exact window, repository, sync time, writers."""
    words = labels(digest.lang)
    synced = _stamp(digest.synced_at) if digest.synced_at else words["never"]
    writers = ", ".join(digest.writers) or "template"
    parts = [
        _label(words["window"], digest.lang) + escape(format_window(digest.window)),
        ", ".join(link(url, repo) for repo, url in digest.sources),
        _label(words["synced"], digest.lang) + synced,
        _label(words["written"], digest.lang) + escape(writers),
    ]
    if digest.fallbacks:
        fell = i18n.t("footer.fallbacks", digest.lang)
        parts.append(_label(fell, digest.lang) + escape(i18n.fallbacks_text(digest)))
    return [" · ".join(parts)]


def _notes(notes: tuple[str, ...]) -> list[dict[str, Any]]:
    if not notes:
        return []
    units = [Unit(UnitKind.PARAGRAPH, ("⚠️", " ", *span_atoms([Text(n)]))) for n in notes]
    return [context_block(pack_texts(units)[:MAX_CONTEXT_ELEMENTS])]


def _messages(header: str | None, body: list[dict[str, Any]], fallback: str) -> list[SlackMessage]:
    """``body`` under an optional header, in as many messages as the limits require."""
    blocks = ([header_block(plain(header, MAX_HEADER_TEXT))] if header else []) + body
    groups = pack_blocks(blocks)
    total = len(groups)
    return [
        {"text": fallback if total == 1 else f"{fallback} ({i}/{total})", "blocks": group}
        for i, group in enumerate(groups, 1)
    ]


def _section_messages(section: Section, lang: Lang) -> list[SlackMessage]:
    body = _section_blocks(block_units(section.blocks))
    if section.writer != "template":
        body.append(context_block([_label(labels(lang)["written"], lang) + escape(section.writer)]))
    return _messages(section.title, body, escape(plain(section.title, MAX_HEADER_TEXT)))


def _fits(blocks: list[dict[str, Any]]) -> bool:
    return len(pack_blocks(blocks, max_blocks=MAX_BLOCKS, max_chars=MAX_BLOCKS_TEXT)) == 1


def render_slack(digest: Digest, *, site_url: str | None = None) -> SlackPost:
    """The parent (title, counts, summary, window, provenance) and one reply per section.

    Beyond a week the appendix lists are cut to their top entries (``for_chat``), each with a
    link to the full list: the report site at ``site_url``, else the command that prints it.
    """
    digest = for_chat(digest, site_url)
    title = i18n.digest_title(digest)
    lines = i18n.counts_lines(digest)
    counts = lines[-1]  # the totals
    head = [header_block(plain(title, MAX_HEADER_TEXT)), section_block(escape("\n".join(lines)))]
    tail = [*_notes(digest.notes), context_block(provenance(digest))]
    summary = digest.section("summary")
    replies: list[SlackMessage] = []
    parent_blocks = head + tail
    if summary is not None:
        heading = Unit(UnitKind.HEADING, (f"*{escape(summary.title.strip())}*",))
        with_summary = head + _section_blocks([heading, *block_units(summary.blocks)]) + tail
        if _fits(with_summary):
            parent_blocks = with_summary
        else:
            replies.extend(_section_messages(summary, digest.lang))
    parent = {"text": escape(f"{title} — {counts}"), "blocks": parent_blocks}
    for section in digest.sections:
        if section.id != "summary":
            replies.extend(_section_messages(section, digest.lang))
    return SlackPost(parent, tuple(replies))


def with_page_link(post: SlackPost, url: str, label: str) -> SlackPost:
    """``post`` with a link to the digest's web page ending the parent's context line."""
    blocks = [dict(block) for block in post.parent.get("blocks", [])]
    for block in reversed(blocks):
        elements = block.get("elements")
        if block.get("type") == "context" and elements:
            last = dict(elements[-1])
            last["text"] = f"{last['text']} · {link(url, label)}"
            block["elements"] = [*elements[:-1], last]
            return SlackPost({**post.parent, "blocks": blocks}, post.replies)
    return post


BUTTON_ACTION = "vr_"  # action ids of the digest buttons: vr_prev, vr_next, vr_lang, vr_web


def with_buttons(post: SlackPost, buttons: Iterable[Button]) -> SlackPost:
    """``post`` with an actions block of ``buttons`` ending its parent. Block Kit buttons cannot
    be disabled, so a disabled one (the next day while it is in the future) is left out."""
    elements: list[dict[str, Any]] = []
    for button in buttons:
        if button.disabled:
            continue
        element: dict[str, Any] = {
            "type": "button",
            "action_id": f"{BUTTON_ACTION}{button.action}",
            "text": {"type": "plain_text", "text": plain(button.label, 75), "emoji": True},
        }
        if button.url is not None:
            if (url := safe_url(button.url)) is None:
                continue
            element["url"] = url
        else:
            element["value"] = button.value
        elements.append(element)
    blocks = list(post.parent.get("blocks", []))
    if not elements or len(blocks) >= MAX_BLOCKS:
        return post
    actions = {"type": "actions", "block_id": "vr_buttons", "elements": elements}
    return SlackPost({**post.parent, "blocks": [*blocks, actions]}, post.replies)


def render_answer(answer: Answer) -> SlackPost:
    """An answer: the question quoted, the linked text, notes and the window searched."""
    words = labels(answer.lang)
    question = Unit(UnitKind.PARAGRAPH, (f"> *{escape(plain(answer.question, 500))}*",))
    body = _section_blocks([question, *block_units(answer.blocks)])
    context = " · ".join(
        [
            _label(words["window"], answer.lang) + escape(format_window(answer.window)),
            link(answer.repo_url, answer.repo),
            _label(words["written"], answer.lang) + escape(answer.writer),
        ]
    )
    body += [*_notes(answer.notes), context_block([context])]
    messages = _messages(None, body, escape(plain(answer.question, 150)))
    return SlackPost(messages[0], tuple(messages[1:]))


def render_text(text: str) -> SlackMessage:
    """A short plain message of ours (help, errors), as mrkdwn without further escaping."""
    return {"text": text}
