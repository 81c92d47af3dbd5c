"""Digests as chat shows them: beyond a week, each appendix list cut to its top entries.

A 30-day window's five lists hold thousands of items: in a chat thread they would be a hundred
messages. Chat shows the first ``TOP_ENTRIES`` of each list, how many more there are and where
the full list is: the report website when it is configured, else the command that prints it.
The terminal, JSON and the website keep the full lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from digest.analysis.text import shorten
from digest.models import Block, BulletList, Digest, Inline, Lang, Link, Paragraph, Text
from digest.spans import Spans, say
from digest.windows import spec_of

ORIGINAL_TAIL = 100  # characters of a comment's original words trailing its line in chat
FULL_LISTS_DAYS = 7  # a window up to this long keeps its full lists in chat
TOP_ENTRIES = 5


def trailing(spans: Iterable[Inline]) -> tuple[Inline, ...]:
    """``spans`` as chat and Markdown show them: a comment's original words (style
    ``original``) as a short quoted tail in italics after the line that summarises them.
    Call it before :func:`digest.render.unlinked.unlinked`, which then cuts the addresses out
    of the tail as of any GitHub text."""
    return tuple(
        Text(f" “{shorten(s.text, ORIGINAL_TAIL)}”", "italic")
        if isinstance(s, Text) and s.style == "original"
        else s
        for s in spans
    )


def full_lists_at(digest: Digest, site_url: str | None = None) -> Spans:
    """Where the full lists of ``digest`` are: the repository's site pages, else a command."""
    if site_url:
        return (Link(f"{site_url.rstrip('/')}/{digest.repo.lower()}/"),)
    lang = "" if digest.lang == Lang.EN else f" --lang {digest.lang}"
    command = f"vllm-report {spec_of(digest.window)} --repo {digest.repo}{lang}"
    return (Text(command, "code"),)


def for_chat(digest: Digest, site_url: str | None = None) -> Digest:
    """``digest`` with, beyond ``FULL_LISTS_DAYS``, each appendix list cut to its top entries
    and a line with the count of the rest and where the full list is."""
    appendix = digest.section("appendix")
    if digest.window.days <= FULL_LISTS_DAYS + 1e-9 or appendix is None:
        return digest
    where = full_lists_at(digest, site_url)
    blocks: list[Block] = []
    for block in appendix.blocks:
        if isinstance(block, BulletList) and len(block.items) > TOP_ENTRIES:
            rest = len(block.items) - TOP_ENTRIES
            blocks.append(BulletList(block.items[:TOP_ENTRIES]))
            blocks.append(Paragraph(say("appendix.more", digest.lang, n=rest, where=where)))
        else:
            blocks.append(block)
    short = replace(appendix, blocks=tuple(blocks))
    sections = tuple(short if s.id == "appendix" else s for s in digest.sections)
    return replace(digest, sections=sections)
