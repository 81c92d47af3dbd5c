"""Discord's documented message limits, and a validator of message payloads against them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

CONTENT = 2000
EMBEDS = 10
EMBEDS_TOTAL = 6000
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR_NAME = 256
THREAD_NAME = 100


class LimitError(ValueError):
    """A message breaks one of Discord's limits."""


def dlen(text: str) -> int:
    """Length as Discord may count it: UTF-16 code units, never less than code points."""
    return len(text.encode("utf-16-le")) // 2


def _embed_problems(embed: Mapping[str, Any], where: str) -> tuple[list[str], int]:
    found: list[str] = []
    total = 0

    def measure(value: object, limit: int, name: str) -> None:
        nonlocal total
        if value is None:
            return
        size = dlen(str(value))
        total += size
        if size > limit:
            found.append(f"{where} {name} has {size} characters (limit {limit})")

    measure(embed.get("title"), EMBED_TITLE, "title")
    measure(embed.get("description"), EMBED_DESCRIPTION, "description")
    measure((embed.get("footer") or {}).get("text"), FOOTER, "footer")
    measure((embed.get("author") or {}).get("name"), AUTHOR_NAME, "author")
    fields = embed.get("fields") or []
    if len(fields) > EMBED_FIELDS:
        found.append(f"{where} has {len(fields)} fields (limit {EMBED_FIELDS})")
    for i, field in enumerate(fields):
        measure(field.get("name"), FIELD_NAME, f"field {i} name")
        measure(field.get("value"), FIELD_VALUE, f"field {i} value")
    return found, total


def problems(payload: Mapping[str, Any]) -> list[str]:
    """Every limit that a message payload (Discord JSON) breaks; empty when it is valid."""
    found: list[str] = []
    content = payload.get("content") or ""
    if dlen(content) > CONTENT:
        found.append(f"content has {dlen(content)} characters (limit {CONTENT})")
    embeds = payload.get("embeds") or []
    if len(embeds) > EMBEDS:
        found.append(f"{len(embeds)} embeds (limit {EMBEDS})")
    total = 0
    for i, embed in enumerate(embeds):
        embed_found, size = _embed_problems(embed, f"embed {i}")
        found.extend(embed_found)
        total += size
    if total > EMBEDS_TOTAL:
        found.append(f"embeds hold {total} characters (limit {EMBEDS_TOTAL})")
    if not content.strip() and not embeds:
        found.append("the message is empty")
    return found


def check(payloads: Iterable[Mapping[str, Any]]) -> None:
    """Raise ``LimitError`` naming every broken limit of ``payloads``."""
    found = [f"message {i}: {p}" for i, payload in enumerate(payloads) for p in problems(payload)]
    if found:
        raise LimitError("; ".join(found))
