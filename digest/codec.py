"""A lossless, versioned JSON form of a :class:`~digest.models.Digest`, for the digest cache.

``decode_digest(encode_digest(d)) == d`` for every digest: all sections, blocks and spans
(text with its style, item and user references). A payload of another codec version or of
another model schema version raises :class:`CodecError`, which a cache treats as a miss.

Spans, blocks and list items are positional arrays, not objects: a 30-day digest holds
thousands of each, and their keys would be most of its size. A plain text span is a string;
a styled one ``[0, text, style]``, an item reference ``[1, number, url, title]``, a user
``[2, login, url]``; a block is ``["p", spans]``, ``["h", text]`` or ``["b", entries]``; an
item is its fields in :class:`~digest.models.Item` order, times in UTC microseconds. The text is
ASCII (other characters escaped): one byte a character, where one emoji would make a 30-day
digest's text four bytes a character, and a transient allocation that large stays in the heap.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from digest.mirror.rows import from_micros, opt_micros, opt_moment, to_micros
from digest.models import (
    SCHEMA_VERSION,
    Block,
    BulletList,
    Counts,
    Digest,
    Inline,
    Item,
    ItemKind,
    ItemRef,
    ItemState,
    Lang,
    Later,
    Link,
    Paragraph,
    Pointer,
    Section,
    Subheading,
    Text,
    Usage,
    UserRef,
    Window,
)

CODEC_VERSION = 5


class CodecError(ValueError):
    """A payload that is not a digest of this codec and schema version."""


_TEXT, _ITEM, _USER, _LINK = 0, 1, 2, 3


def _span(span: Inline) -> Any:
    if isinstance(span, Text):
        return span.text if span.style == "plain" else [_TEXT, span.text, span.style]
    if isinstance(span, ItemRef):
        ref = [_ITEM, span.number, span.url, span.title]
        return [*ref, span.repo] if span.repo else ref
    if isinstance(span, Pointer):
        raise CodecError("a digest holds no pointers")
    if isinstance(span, Link):
        return [_LINK, span.url, span.text]
    if span.role or span.affiliation:
        return [_USER, span.login, span.url, span.role, span.affiliation]
    return [_USER, span.login, span.url]


def _later(later: Later) -> list[Any]:
    out = [later.number, later.event, to_micros(later.at), later.reason, later.is_pr]
    if later.by is not None:
        return [*out, later.repo, later.by]
    return [*out, later.repo] if later.repo else out


def _scope_fields(digest: Digest) -> dict[str, Any]:
    """A scope's fields, only when the digest has them (a repository's digest is unchanged)."""
    out: dict[str, Any] = {}
    if digest.scope:
        out["scope"] = digest.scope
    if digest.repos:
        out["repos"] = list(digest.repos)
        out["repo_counts"] = [[repo, counts.as_dict()] for repo, counts in digest.repo_counts]
    if digest.unfiltered is not None:
        out["unfiltered"] = digest.unfiltered.as_dict()
    return out


def _block(block: Block) -> list[Any]:
    if isinstance(block, Paragraph):
        return ["p", [_span(s) for s in block.spans]]
    if isinstance(block, Subheading):
        return ["h", block.text]
    return ["b", [[_span(s) for s in entry] for entry in block.items]]


def _item(item: Item) -> list[Any]:
    return [
        item.repo,
        item.number,
        item.kind.value,
        item.title,
        item.author,
        item.author_is_bot,
        item.labels,
        item.state.value,
        item.state_reason,
        to_micros(item.created_at),
        to_micros(item.updated_at),
        opt_micros(item.closed_at),
        opt_micros(item.merged_at),
        item.url,
        item.body_excerpt,
        item.comments_total,
        item.draft,
        item.author_association,
        item.fixes,
    ]


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
        "lists": [[key, [_item(i) for i in items]] for key, items in digest.lists],
        "later": [_later(f) for f in digest.later],
        "behind": digest.behind,
        **_scope_fields(digest),
    }
    return json.dumps(payload, separators=(",", ":"))


class _Reader:
    """Reads spans and blocks, one object for each distinct plain text and user: a 30-day
    appendix repeats its few connecting words and its authors thousands of times."""

    def __init__(self) -> None:
        self._texts: dict[str, Text] = {}
        self._users: dict[str, UserRef] = {}

    def span(self, data: Any) -> Inline:
        if isinstance(data, str):
            text = self._texts.get(data)
            if text is None:
                text = self._texts[data] = Text(data)
            return text
        kind = data[0]
        if kind == _ITEM:
            return ItemRef(data[1], data[2], data[3], data[4] if len(data) > 4 else "")
        if kind == _USER and len(data) > 3:
            return UserRef(data[1], data[2], data[3], data[4])
        if kind == _USER:
            user = self._users.get(data[2])
            if user is None or user.login != data[1]:
                user = self._users[data[2]] = UserRef(data[1], data[2])
            return user
        if kind == _TEXT:
            return Text(data[1], data[2])
        if kind == _LINK:
            return Link(data[1], data[2])
        raise CodecError(f"unknown span type {kind!r}")

    def block(self, data: list[Any]) -> Block:
        kind, body = data
        span = self.span
        if kind == "b":
            return BulletList(tuple(tuple(map(span, entry)) for entry in body))
        if kind == "p":
            return Paragraph(tuple(map(span, body)))
        if kind == "h":
            return Subheading(body)
        raise CodecError(f"unknown block type {kind!r}")


_KINDS = {kind.value: kind for kind in ItemKind}
_STATES = {state.value: state for state in ItemState}


def _read_item(data: list[Any]) -> Item:
    (repo, number, kind, title, author, bot, labels, state, reason) = data[:9]
    (created, updated, closed, merged, url, body, total, draft, association, fixes) = data[9:]
    return Item(
        repo=repo,
        number=number,
        kind=_KINDS[kind],
        title=title,
        author=author,
        author_is_bot=bot,
        labels=tuple(labels),
        state=_STATES[state],
        state_reason=reason,
        created_at=from_micros(created),
        updated_at=from_micros(updated),
        closed_at=opt_moment(closed),
        merged_at=opt_moment(merged),
        url=url,
        body_excerpt=body,
        comments_total=total,
        draft=draft,
        author_association=association,
        fixes=tuple(fixes),
    )


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
        block = _Reader().block
        return Digest(
            repo=data["repo"],
            window=Window(
                start=datetime.fromisoformat(w["start"]),
                end=datetime.fromisoformat(w["end"]),
                timezone=w["timezone"],
                label=w["label"],
                ends_now=w["ends_now"],
            ),
            lang=Lang(data["lang"]),
            counts=Counts(**data["counts"]),
            sections=tuple(
                Section(
                    id=s["id"],
                    title=s["title"],
                    blocks=tuple(map(block, s["blocks"])),
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
            lists=tuple((key, tuple(_read_item(i) for i in items)) for key, items in data["lists"]),
            later=tuple(
                Later(number, event, from_micros(at), reason, is_pr, *rest)
                for number, event, at, reason, is_pr, *rest in data.get("later", ())
            ),
            schema_version=data["schema_version"],
            behind=bool(data.get("behind", False)),
            scope=data.get("scope", ""),
            repos=tuple(data.get("repos", ())),
            repo_counts=tuple((r, Counts(**c)) for r, c in data.get("repo_counts", ())),
            unfiltered=Counts(**data["unfiltered"]) if "unfiltered" in data else None,
        )
    except CodecError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise CodecError(f"not a cached digest: {exc}") from exc
