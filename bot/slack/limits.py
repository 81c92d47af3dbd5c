"""Slack's message limits and a validator for the messages we post."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_MESSAGE_TEXT = 40_000
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTION_ELEMENTS = 25  # an actions block
MAX_BUTTON_VALUE = 2000
MAX_BUTTON_TEXT = 75
# Not documented, but Slack answers ``msg_blocks_too_long`` from about 13,000 characters of
# block text in one message; we stay well under it.
MAX_BLOCKS_TEXT = 12_000


def _block_text(block: Mapping[str, Any]) -> list[str]:
    if block.get("type") == "context":
        return [str(e.get("text", "")) for e in block.get("elements", ())]
    text = block.get("text")
    return [str(text.get("text", ""))] if isinstance(text, Mapping) else []


def blocks_text_length(blocks: list[dict[str, Any]]) -> int:
    """The number of text characters across ``blocks``."""
    return sum(len(t) for b in blocks for t in _block_text(b))


def _action_violations(index: int, block: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    elements = list(block.get("elements") or ())
    if not 1 <= len(elements) <= MAX_ACTION_ELEMENTS:
        found.append(f"block {index}: actions need 1 to {MAX_ACTION_ELEMENTS} elements")
    ids = [e.get("action_id") for e in elements]
    if len(set(ids)) != len(ids):
        found.append(f"block {index}: action ids repeat")
    for element in elements:
        label = str((element.get("text") or {}).get("text") or "")
        if not 1 <= len(label) <= MAX_BUTTON_TEXT:
            found.append(f"block {index}: button label of {len(label)} characters")
        if ("value" in element) == ("url" in element):
            found.append(f"block {index}: a button has a value or a url")
        if len(str(element.get("value") or "")) > MAX_BUTTON_VALUE:
            found.append(f"block {index}: button value too long")
    return found


def violations(message: Mapping[str, Any]) -> list[str]:
    """Every way ``message`` (``text`` + ``blocks``) breaks Slack's limits; empty when it fits."""
    found: list[str] = []
    text = message.get("text")
    blocks: list[dict[str, Any]] = list(message.get("blocks") or ())
    if not text and not blocks:
        found.append("empty message")
    if text is not None and len(text) > MAX_MESSAGE_TEXT:
        found.append(f"text has {len(text)} characters (max {MAX_MESSAGE_TEXT})")
    if len(blocks) > MAX_BLOCKS:
        found.append(f"{len(blocks)} blocks (max {MAX_BLOCKS})")
    for index, block in enumerate(blocks):
        kind = block.get("type")
        texts = _block_text(block)
        if kind == "header":
            if texts and len(texts[0]) > MAX_HEADER_TEXT:
                found.append(f"block {index}: header of {len(texts[0])} characters")
            if block.get("text", {}).get("type") != "plain_text":
                found.append(f"block {index}: header text must be plain_text")
        elif kind == "section":
            if texts and len(texts[0]) > MAX_SECTION_TEXT:
                found.append(f"block {index}: section text of {len(texts[0])} characters")
            if texts and not texts[0].strip():
                found.append(f"block {index}: empty section text")
        elif kind == "context":
            if not 1 <= len(block.get("elements", ())) <= MAX_CONTEXT_ELEMENTS:
                found.append(f"block {index}: context needs 1 to {MAX_CONTEXT_ELEMENTS} elements")
            for text_value in texts:
                if len(text_value) > MAX_SECTION_TEXT:
                    found.append(f"block {index}: context text of {len(text_value)} characters")
        elif kind == "actions":
            found.extend(_action_violations(index, block))
        elif kind != "divider":
            found.append(f"block {index}: unexpected block type {kind!r}")
    total = blocks_text_length(blocks)
    if total > MAX_BLOCKS_TEXT:
        found.append(f"blocks hold {total} characters (max {MAX_BLOCKS_TEXT})")
    return found
