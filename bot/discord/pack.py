"""Blocks as Discord markdown, packed into chunks that never cut a link, a word or a list item."""

from __future__ import annotations

from dataclasses import dataclass

from bot.discord.limits import dlen
from bot.discord.markdown import escape, line_tokens
from digest.models import Block, BulletList, Paragraph, Subheading


@dataclass(frozen=True, slots=True)
class Unit:
    """Lines that belong together (a paragraph, a list item, a heading with what follows)."""

    lines: tuple[tuple[str, ...], ...]
    gap: str = "\n\n"

    @property
    def text(self) -> str:
        return "\n".join("".join(line) for line in self.lines)


def units(blocks: tuple[Block, ...]) -> list[Unit]:
    """``blocks`` as units; a subheading is kept with the first line after it."""
    out: list[Unit] = []
    heading: tuple[str, ...] | None = None
    for block in blocks:
        if isinstance(block, Subheading):
            if heading is not None:
                out.append(Unit((heading,)))
            title = escape(block.text).strip()
            heading = (f"**{title}**",) if title else None
            continue
        if isinstance(block, Paragraph):
            found = [(tuple(line_tokens(block.spans)), "\n\n")]
        elif isinstance(block, BulletList):
            found = [
                (("- ", *line_tokens(entry)), "\n\n" if i == 0 else "\n")
                for i, entry in enumerate(block.items)
            ]
        else:
            raise TypeError(f"unknown block {block!r}")
        for line, gap in found:
            if len(line) == 0 or line == ("- ",):
                continue
            if heading is not None:
                out.append(Unit((heading, line)))
                heading = None
            else:
                out.append(Unit((line,), gap))
    if heading is not None:
        out.append(Unit((heading,)))
    return out


def _hard_split(token: str, budget: int) -> list[str]:
    parts: list[str] = []
    current = ""
    for char in token:
        if dlen(current) + dlen(char) > budget:
            carry = ""
            if current.endswith("\\") and (len(current) - len(current.rstrip("\\"))) % 2:
                current, carry = current[:-1], "\\"
            parts.append(current)
            current = carry
        current += char
    if current:
        parts.append(current)
    return parts


def wrap(tokens: tuple[str, ...], budget: int) -> list[str]:
    """One line as pieces of at most ``budget`` characters, broken only at spaces."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0

    def flush() -> None:
        nonlocal current, size
        while current and current[-1] == " ":
            current.pop()
        if current:
            pieces.append("".join(current))
        current, size = [], 0

    for token in tokens:
        if token == " ":
            if current:
                current.append(token)
                size += 1
            continue
        length = dlen(token)
        if size + length <= budget:
            current.append(token)
            size += length
            continue
        flush()
        if length <= budget:
            current, size = [token], length
        else:
            *whole, last = _hard_split(token, budget)
            pieces.extend(whole)
            current, size = [last], dlen(last)
    flush()
    return pieces


def pack(found: list[Unit], budget: int) -> list[str]:
    """Units joined into chunks of at most ``budget`` characters, splitting only when needed."""
    chunks: list[str] = []
    current = ""

    def add(text: str, gap: str) -> None:
        nonlocal current
        if current and dlen(current) + dlen(gap) + dlen(text) <= budget:
            current += gap + text
            return
        if current:
            chunks.append(current)
        current = text

    for unit in found:
        text = unit.text
        if dlen(text) <= budget:
            add(text, unit.gap)
            continue
        first = True
        for line in unit.lines:
            for piece in wrap(line, budget):
                add(piece, unit.gap if first else "\n")
                first = False
    if current:
        chunks.append(current)
    return chunks
