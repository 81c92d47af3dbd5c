"""Pure renderers: a digest as a parent embed plus thread messages, an answer as text messages."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.commands import messages
from bot.commands.buttons import Button
from bot.discord import limits
from bot.discord.limits import dlen
from bot.discord.markdown import escape, neutralize
from bot.discord.pack import Unit, pack, units
from digest import i18n
from digest.models import Answer, Digest, Section
from digest.render.chat import for_chat
from digest.windows import format_moment, format_window

COLOR = 0x1F6FEB
SECTION_BUDGET = 2850  # two descriptions and a title stay under 6,000 characters a message
EMBEDS_PER_MESSAGE = 2
ANSWER_BUDGET = 1900


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    value: str
    inline: bool = False


@dataclass(frozen=True, slots=True)
class EmbedSpec:
    """One embed, as Discord receives it."""

    description: str = ""
    title: str | None = None
    url: str | None = None
    fields: tuple[Field, ...] = ()
    color: int = COLOR

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "rich", "color": self.color}
        if self.title:
            data["title"] = self.title
        if self.url:
            data["url"] = self.url
        if self.description:
            data["description"] = self.description
        if self.fields:
            data["fields"] = [
                {"name": f.name, "value": f.value, "inline": f.inline} for f in self.fields
            ]
        return data


@dataclass(frozen=True, slots=True)
class MessageSpec:
    """One message: text content and/or embeds."""

    content: str = ""
    embeds: tuple[EmbedSpec, ...] = ()
    buttons: tuple[Button, ...] = ()  # one row of components under the message

    def to_dict(self) -> dict[str, Any]:
        return {"content": self.content, "embeds": [e.to_dict() for e in self.embeds]}


@dataclass(frozen=True, slots=True)
class DiscordPost:
    """A digest for Discord: the parent message, the thread's name and the thread's messages."""

    parent: MessageSpec
    thread_name: str
    thread: tuple[MessageSpec, ...]

    @property
    def messages(self) -> tuple[MessageSpec, ...]:
        return (self.parent, *self.thread)


def clip(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis."""
    if dlen(text) <= limit:
        return text
    kept: list[str] = []
    size = 0
    for char in text:
        size += dlen(char)
        if size > limit - 1:
            break
        kept.append(char)
    cut = "".join(kept)
    head = cut.rsplit(" ", 1)[0] if " " in cut.strip() else cut
    if (len(head) - len(head.rstrip("\\"))) % 2:
        head = head[:-1]
    return head.rstrip() + "…"


def report_title(digest: Digest) -> str:
    """``vLLM Development Report - 2026-03-10`` in the digest's language."""
    return i18n.digest_title(digest)


def thread_name(digest: Digest) -> str:
    """The report title as a thread name of at most 100 characters."""
    return clip(" ".join(report_title(digest).split()), limits.THREAD_NAME)


def _source(digest: Digest) -> str:
    lang = digest.lang
    colon = i18n.phrase("common.colon", lang)
    writers = ", ".join(digest.writers) or "template"
    synced = (
        format_moment(digest.synced_at, digest.window.timezone)
        if digest.synced_at
        else i18n.phrase("footer.never_synced", lang)
    )
    generated = format_moment(digest.generated_at, digest.window.timezone)
    parts = [
        f"{i18n.phrase('footer.writers', lang)}{colon}{writers}",
        f"{i18n.phrase('footer.synced', lang)}{colon}{synced}",
        f"{i18n.phrase('footer.generated', lang)}{colon}{generated}",
    ]
    if digest.fallbacks:
        parts.append(f"{i18n.phrase('footer.fallbacks', lang)}{colon}{i18n.fallbacks_text(digest)}")
    return neutralize(" · ".join(parts))


def _parent(digest: Digest, summary: Section | None) -> tuple[MessageSpec, bool]:
    lang = digest.lang
    more = f"\n*… {messages.continued(lang)}*"
    fields = [
        Field(
            i18n.phrase("report.window", lang),
            clip(format_window(digest.window), limits.FIELD_VALUE),
        ),
        Field(i18n.phrase("footer.source", lang), clip(_source(digest), limits.FIELD_VALUE)),
    ]
    if digest.notes:
        notes = "\n".join(f"- {escape(n).strip()}" for n in digest.notes)
        fields.append(Field(i18n.phrase("footer.notes", lang), clip(notes, limits.FIELD_VALUE)))
    title = clip(neutralize(report_title(digest)), limits.EMBED_TITLE)
    head = "\n".join(i18n.counts_lines(digest))
    used = dlen(title) + sum(dlen(f.name) + dlen(f.value) for f in fields)
    budget = min(limits.EMBED_DESCRIPTION, limits.EMBEDS_TOTAL - used) - dlen(head) - 2
    truncated = False
    description = head
    if summary is not None:
        chunks = pack(units(summary.blocks), budget - dlen(more))
        if chunks:
            description = f"{head}\n\n{chunks[0]}"
            if len(chunks) > 1:
                description += more
                truncated = True
    embed = EmbedSpec(
        description=description, title=title, url=digest.repo_url or None, fields=tuple(fields)
    )
    return MessageSpec(embeds=(embed,)), truncated


def section_messages(section: Section) -> tuple[MessageSpec, ...]:
    """One section as messages of at most two embeds; the first embed carries the title."""
    title = clip(neutralize(section.title), limits.EMBED_TITLE) or None
    chunks = pack(units(section.blocks), SECTION_BUDGET) or ["—"]
    embeds = [
        EmbedSpec(description=chunk, title=title if i == 0 else None)
        for i, chunk in enumerate(chunks)
    ]
    return tuple(
        MessageSpec(embeds=tuple(embeds[i : i + EMBEDS_PER_MESSAGE]))
        for i in range(0, len(embeds), EMBEDS_PER_MESSAGE)
    )


def render_discord(digest: Digest, *, site_url: str | None = None) -> DiscordPost:
    """The parent embed (title, counts, daily summary, window, source) and the thread's messages.

    Beyond a week the appendix lists are cut to their top entries (``for_chat``), each with a
    link to the full list: the report site at ``site_url``, else the command that prints it.
    """
    digest = for_chat(digest, site_url)
    summary = digest.section("summary")
    parent, summary_truncated = _parent(digest, summary)
    thread: list[MessageSpec] = []
    for section in digest.sections:
        if section.id == "summary" and not summary_truncated:
            continue
        thread.extend(section_messages(section))
    return DiscordPost(parent=parent, thread_name=thread_name(digest), thread=tuple(thread))


def render_answer(answer: Answer) -> tuple[MessageSpec, ...]:
    """An answer as text messages of at most 2,000 characters, with its window as a footnote."""
    found = units(answer.blocks)
    for note in answer.notes:
        found.append(Unit(((f"*{escape(note).strip()}*",),)))
    found.append(Unit(((f"-# {neutralize(format_window(answer.window))}",),)))
    return tuple(MessageSpec(content=chunk) for chunk in pack(found, ANSWER_BUDGET))


def render_text(text: str) -> tuple[MessageSpec, ...]:
    """Trusted wording (help, confirmations) as text messages within the content limit."""
    found = [
        Unit(tuple((line,) for line in para.splitlines()))
        for para in text.strip().split("\n\n")
        if para.strip()
    ]
    return tuple(MessageSpec(content=chunk) for chunk in pack(found, ANSWER_BUDGET))


def validate(post: DiscordPost) -> None:
    """Raise ``LimitError`` when any message of ``post`` breaks a Discord limit."""
    limits.check(m.to_dict() for m in post.messages)
    if not 1 <= dlen(post.thread_name) <= limits.THREAD_NAME:
        raise limits.LimitError(f"thread name has {dlen(post.thread_name)} characters")


MAX_BUTTONS = 5  # one action row


def with_buttons(post: DiscordPost, buttons: Iterable[Button]) -> DiscordPost:
    """``post`` whose parent carries ``buttons`` (at most one row of five)."""
    row = tuple(buttons)[:MAX_BUTTONS]
    if not row:
        return post
    return dataclasses.replace(post, parent=dataclasses.replace(post.parent, buttons=row))
