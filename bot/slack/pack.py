"""Pack mrkdwn into section blocks and messages within Slack's limits.

Text arrives as *units* (a paragraph, a subheading or one list item), each a sequence of
*atoms*: an escaped word, a link or a run of whitespace. A message is only ever broken between
units, a unit only between atoms, so no link, word or list item is cut unless it alone is longer
than a whole block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise
from typing import Any

from bot.slack.limits import MAX_BLOCKS, MAX_BLOCKS_TEXT, MAX_SECTION_TEXT


class UnitKind(StrEnum):
    PARAGRAPH = "paragraph"
    HEADING = "heading"
    BULLET = "bullet"


@dataclass(frozen=True, slots=True)
class Unit:
    """One paragraph, subheading or list item, as breakable atoms of mrkdwn."""

    kind: UnitKind
    atoms: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.atoms).strip()


def _separator(before: Unit, after: Unit) -> str:
    if before.kind is UnitKind.HEADING or (
        before.kind is UnitKind.BULLET and after.kind is UnitKind.BULLET
    ):
        return "\n"
    return "\n\n"


def _cut_word(word: str, limit: int) -> list[str]:
    """A single over-long atom in pieces of at most ``limit``, never inside an ``&...;`` entity."""
    pieces: list[str] = []
    while len(word) > limit:
        cut = limit
        amp = word.rfind("&", cut - 6, cut)
        if amp > 0 and ";" not in word[amp:cut]:
            cut = amp
        pieces.append(word[:cut])
        word = word[cut:]
    return [*pieces, word] if word else pieces


def _split_unit(unit: Unit, limit: int) -> list[Unit]:
    """``unit`` in pieces of at most ``limit`` characters, broken only between atoms."""
    if len(unit.text) <= limit:
        return [unit]
    pieces: list[Unit] = []
    current: list[str] = []
    size = 0
    atoms = [piece for atom in unit.atoms for piece in _cut_word(atom, limit)]
    for atom in atoms:
        if not current and atom.isspace():
            continue
        if size + len(atom) > limit and current:
            pieces.append(Unit(unit.kind, tuple(current)))
            current, size = [], 0
            if atom.isspace():
                continue
        current.append(atom)
        size += len(atom)
    if current:
        pieces.append(Unit(unit.kind, tuple(current)))
    return [p for p in pieces if p.text]


def _extra(before: Unit, after: Unit) -> int:
    return len(_separator(before, after)) + len(after.text)


def pack_texts(units: Iterable[Unit], limit: int = MAX_SECTION_TEXT) -> list[str]:
    """The units joined into texts of at most ``limit`` characters; headings keep with next."""
    texts: list[str] = []
    current: list[Unit] = []
    size = 0

    def flush() -> None:
        nonlocal current, size
        if not current:
            return
        carry: list[Unit] = []
        if len(current) > 1 and current[-1].kind is UnitKind.HEADING:
            carry = [current.pop()]
        parts = [current[0].text]
        for before, after in pairwise(current):
            parts.append(_separator(before, after) + after.text)
        texts.append("".join(parts))
        current = carry
        size = sum(len(u.text) for u in carry)  # at most one heading

    for unit in units:
        for piece in _split_unit(unit, limit):
            while current and size + _extra(current[-1], piece) > limit:
                flush()
            size += _extra(current[-1], piece) if current else len(piece.text)
            current.append(piece)
    while current:
        flush()
    return texts


def mrkdwn(text: str) -> dict[str, Any]:
    """A mrkdwn text object sent ``verbatim``: Slack links, mentions and channel names only
    what the text marks up itself (``<url|label>``), never a bare domain, ``#name`` or ``@name``
    of the text."""
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def section_block(text: str) -> dict[str, Any]:
    return {"type": "section", "text": mrkdwn(text)}


def header_block(text: str) -> dict[str, Any]:
    return {"type": "header", "text": {"type": "plain_text", "text": text, "emoji": True}}


def context_block(texts: Iterable[str]) -> dict[str, Any]:
    return {"type": "context", "elements": [mrkdwn(t) for t in texts]}


def pack_blocks(
    blocks: Iterable[dict[str, Any]],
    *,
    max_blocks: int = MAX_BLOCKS,
    max_chars: int = MAX_BLOCKS_TEXT,
) -> list[list[dict[str, Any]]]:
    """Consecutive blocks grouped into messages of at most ``max_blocks`` and ``max_chars``."""
    messages: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    size = 0
    for block in blocks:
        length = _length(block)
        if current and (len(current) >= max_blocks or size + length > max_chars):
            messages.append(current)
            current, size = [], 0
        current.append(block)
        size += length
    if current:
        messages.append(current)
    return messages


def _length(block: dict[str, Any]) -> int:
    if block.get("type") == "context":
        return sum(len(e.get("text", "")) for e in block.get("elements", ()))
    text = block.get("text")
    return len(text.get("text", "")) if isinstance(text, dict) else 0
