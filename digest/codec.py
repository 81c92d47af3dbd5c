"""A lossless, versioned JSON form of a :class:`~digest.models.Digest`, for the digest cache.

``decode_digest(encode_digest(d)) == d`` for every digest: all sections, blocks and spans
(text with its style, item and user references). A payload of another codec version or of
another model schema version raises :class:`CodecError`, which a cache treats as a miss.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from digest.mirror.rows import item_from_dict, item_to_dict
from digest.models import (
    SCHEMA_VERSION,
    Block,
    BulletList,
    Counts,
    Digest,
    Inline,
    ItemRef,
    Paragraph,
    Pointer,
    Section,
    Subheading,
    Text,
    Usage,
    UserRef,
    Window,
)

CODEC_VERSION = 2


class CodecError(ValueError):
    """A payload that is not a digest of this codec and schema version."""


def _span(span: Inline) -> dict[str, Any]:
    if isinstance(span, Text):
        return {"t": "text", "text": span.text, "style": span.style}
    if isinstance(span, ItemRef):
        return {"t": "item", "number": span.number, "url": span.url, "title": span.title}
    if isinstance(span, Pointer):
        raise CodecError("a digest holds no pointers")
    return {"t": "user", "login": span.login, "url": span.url}


def _block(block: Block) -> dict[str, Any]:
    if isinstance(block, Paragraph):
        return {"t": "paragraph", "spans": [_span(s) for s in block.spans]}
    if isinstance(block, Subheading):
        return {"t": "subheading", "text": block.text}
    return {"t": "bullets", "items": [[_span(s) for s in entry] for entry in block.items]}


def _moment(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def encode_digest(digest: Digest) -> str:
    """The digest as compact JSON text."""
    window = digest.window
    payload = {
        "codec": CODEC_VERSION,
        "schema_version": digest.schema_version,
        "repo": digest.repo,
        "window": {
            "start": window.start.isoformat(),
            "end": window.end.isoformat(),
            "timezone": window.timezone,
            "label": window.label,
            "ends_now": window.ends_now,
        },
        "lang": digest.lang,
        "counts": digest.counts.as_dict(),
        "sections": [
            {
                "id": s.id,
                "title": s.title,
                "writer": s.writer,
                "fallback": s.fallback,
                "blocks": [_block(b) for b in s.blocks],
            }
            for s in digest.sections
        ],
        "generated_at": digest.generated_at.isoformat(),
        "synced_at": _moment(digest.synced_at),
        "repo_url": digest.repo_url,
        "display_name": digest.display_name,
        "usage": {
            "prompt_tokens": digest.usage.prompt_tokens,
            "completion_tokens": digest.usage.completion_tokens,
        },
        "notes": list(digest.notes),
        "lists": [
            [key, [{"repo": i.repo, "number": i.number, **item_to_dict(i)} for i in items]]
            for key, items in digest.lists
        ],
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _read_span(data: dict[str, Any]) -> Inline:
    kind = data["t"]
    if kind == "text":
        return Text(data["text"], data["style"])
    if kind == "item":
        return ItemRef(data["number"], data["url"], data["title"])
    if kind == "user":
        return UserRef(data["login"], data["url"])
    raise CodecError(f"unknown span type {kind!r}")


def _read_block(data: dict[str, Any]) -> Block:
    kind = data["t"]
    if kind == "paragraph":
        return Paragraph(tuple(_read_span(s) for s in data["spans"]))
    if kind == "subheading":
        return Subheading(data["text"])
    if kind == "bullets":
        return BulletList(tuple(tuple(_read_span(s) for s in entry) for entry in data["items"]))
    raise CodecError(f"unknown block type {kind!r}")


def _read_moment(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def decode_digest(text: str | bytes) -> Digest:
    """The digest that :func:`encode_digest` wrote; :class:`CodecError` for anything else."""
    try:
        data = json.loads(text)
        if data.get("codec") != CODEC_VERSION:
            raise CodecError(f"digest codec {data.get('codec')!r}, expected {CODEC_VERSION}")
        if data.get("schema_version") != SCHEMA_VERSION:
            raise CodecError(f"digest schema {data.get('schema_version')!r}")
        w = data["window"]
        return Digest(
            repo=data["repo"],
            window=Window(
                start=datetime.fromisoformat(w["start"]),
                end=datetime.fromisoformat(w["end"]),
                timezone=w["timezone"],
                label=w["label"],
                ends_now=w["ends_now"],
            ),
            lang=data["lang"],
            counts=Counts(**data["counts"]),
            sections=tuple(
                Section(
                    id=s["id"],
                    title=s["title"],
                    blocks=tuple(_read_block(b) for b in s["blocks"]),
                    writer=s["writer"],
                    fallback=s.get("fallback", ""),
                )
                for s in data["sections"]
            ),
            generated_at=datetime.fromisoformat(data["generated_at"]),
            synced_at=_read_moment(data["synced_at"]),
            repo_url=data["repo_url"],
            display_name=data["display_name"],
            usage=Usage(**data["usage"]),
            notes=tuple(data["notes"]),
            lists=tuple(
                (key, tuple(item_from_dict(i["repo"], i["number"], i) for i in items))
                for key, items in data["lists"]
            ),
            schema_version=data["schema_version"],
        )
    except CodecError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CodecError(f"not a cached digest: {exc}") from exc
