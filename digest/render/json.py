"""The JSON form of a digest: versioned and documented in docs/json-schema.md."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, TextIO

from digest.analysis.types import LIST_KEYS
from digest.models import (
    Block,
    BulletList,
    Digest,
    Inline,
    Item,
    ItemRef,
    Later,
    Link,
    Paragraph,
    Pointer,
    Section,
    Subheading,
    UserRef,
    Window,
    iter_spans,
)
from digest.render.markdown import render_blocks
from digest.windows import format_window, title_date


def iso(moment: datetime | None) -> str | None:
    """``2026-03-10T03:21:00Z``: UTC, second precision, or ``None``."""
    if moment is None:
        return None
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def window_json(window: Window) -> dict[str, Any]:
    """A window's bounds in UTC, its zone and label, and whether it ends now."""
    return {
        "start": iso(window.start),
        "end": iso(window.end),
        "timezone": window.timezone,
        "label": window.label,
        "ends_now": window.ends_now,
    }


def span_json(span: Inline) -> dict[str, Any]:
    """One span: ``text`` (with ``style``), ``item``, ``user``, ``link`` or ``pointer``."""
    if isinstance(span, ItemRef):
        ref = {"type": "item", "number": span.number, "url": span.url, "title": span.title}
        return {**ref, "repo": span.repo} if span.repo else ref
    if isinstance(span, UserRef):
        out: dict[str, Any] = {"type": "user", "login": span.login, "url": span.url}
        if span.role:
            out["role"] = span.role
        if span.affiliation:
            out["affiliation"] = span.affiliation
        return out
    if isinstance(span, Link):
        return {"type": "link", "url": span.url, "text": span.text}
    if isinstance(span, Pointer):
        return {
            "type": "pointer",
            "window": None if span.window is None else window_json(span.window),
            "topic": span.topic,
            "repo": span.repo,
            "question": span.question,
        }
    return {"type": "text", "text": span.text, "style": span.style}


def block_json(block: Block) -> dict[str, Any]:
    """One block: ``paragraph`` (spans), ``subheading`` (text) or ``bullets`` (items of spans)."""
    if isinstance(block, Subheading):
        return {"type": "subheading", "text": block.text}
    if isinstance(block, Paragraph):
        return {"type": "paragraph", "spans": [span_json(s) for s in block.spans]}
    return {"type": "bullets", "items": [[span_json(s) for s in entry] for entry in block.items]}


def section_json(section: Section) -> dict[str, Any]:
    """One section; in a digest of several repositories, with ``cited``: its items as
    ``owner/name#N`` (numbers repeat across repositories)."""
    out = {
        "id": section.id,
        "title": section.title,
        "writer": section.writer,
        "fallback": section.fallback or None,
        "text": render_blocks(section.blocks),
        "blocks": [block_json(b) for b in section.blocks],
        "cites": list(section.cites),
    }
    named = [s.label for s in iter_spans(section.blocks) if isinstance(s, ItemRef) and s.repo]
    return {**out, "cited": list(dict.fromkeys(named))} if named else out


def later_json(later: Later) -> dict[str, Any]:
    """What became of an item after the window closed."""
    out = {
        "number": later.number,
        "event": later.event,
        "at": iso(later.at),
        "reason": later.reason,
        **({} if later.by is None else {"by": later.by}),
    }
    return {**out, "repo": later.repo} if later.repo else out


def item_json(item: Item, later: Later | None = None, several: bool = False) -> dict[str, Any]:
    """One item of a list, as it stood at the window's end, and its ``later`` fate (and its
    ``repo`` first, in a digest of several repositories)."""
    return {
        **({"repo": item.repo} if several else {}),
        "number": item.number,
        "kind": item.kind.value,
        "title": item.title,
        "author": item.author,
        "author_is_bot": item.author_is_bot,
        "url": item.url,
        "state": item.state.value,
        "state_reason": item.state_reason,
        "labels": list(item.labels),
        "draft": item.draft,
        "created_at": iso(item.created_at),
        "closed_at": iso(item.closed_at),
        "merged_at": iso(item.merged_at),
        "comments_total": item.comments_total,
        "fixes": list(item.fixes),
        "later": None if later is None else later_json(later),
    }


def _lists_from_appendix(digest: Digest) -> dict[str, list[dict[str, Any]]]:
    """The lists as the appendix shows them (number, title, url, author), in list order."""
    out: dict[str, list[dict[str, Any]]] = {key: [] for key in LIST_KEYS}
    appendix = digest.section("appendix")
    if appendix is None:
        return out
    keys = iter(LIST_KEYS)
    current: list[dict[str, Any]] | None = None
    for block in appendix.blocks:
        if isinstance(block, Subheading):
            key = next(keys, None)
            current = out[key] if key else None
        elif isinstance(block, BulletList) and current is not None:
            for entry in block.items:
                ref = next((s for s in entry if isinstance(s, ItemRef)), None)
                user = next((s for s in entry if isinstance(s, UserRef)), None)
                if ref is not None:
                    current.append(
                        {
                            "number": ref.number,
                            "title": ref.title,
                            "url": ref.url,
                            "author": user.login if user else None,
                        }
                    )
    return out


def scope_json(digest: Digest) -> dict[str, Any]:
    """A scope's fields (none for one repository without filters): ``scope``, ``repos``,
    ``repo_counts`` and ``unfiltered_counts``."""
    out: dict[str, Any] = {}
    if digest.scope:
        out["scope"] = digest.scope
    if digest.repos:
        out["repos"] = list(digest.repos)
        out["repo_counts"] = {repo: counts.as_dict() for repo, counts in digest.repo_counts}
    if digest.unfiltered is not None:
        out["unfiltered_counts"] = digest.unfiltered.as_dict()
    return out


def lists_json(digest: Digest) -> dict[str, list[dict[str, Any]]]:
    """The five lists: full items when the digest carries them, else from its appendix."""
    if not digest.lists:
        return _lists_from_appendix(digest)
    given = dict(digest.lists)
    fates = {(f.repo, f.number): f for f in digest.later}
    return {
        key: [
            item_json(item, fates.get((digest.ref_repo(item), item.number)), digest.several)
            for item in given.get(key, ())
        ]
        for key in LIST_KEYS
    }


def to_json(digest: Digest) -> dict[str, Any]:
    """The digest as a JSON-ready dict (see docs/json-schema.md)."""
    sections = [section_json(s) for s in digest.sections]
    return _fields(digest, sections, lists_json(digest))


def _fields(digest: Digest, sections: object, lists: object) -> dict[str, Any]:
    """The document's fields in order, with ``sections`` and ``lists`` as given."""
    window = digest.window
    return {
        "schema_version": digest.schema_version,
        "repo": digest.repo,
        "repo_url": digest.repo_url,
        "display_name": digest.shown_name,
        "lang": digest.lang,
        "window": {
            **window_json(window),
            "date": title_date(window),
            "display": format_window(window),
        },
        "counts": digest.counts.as_dict(),
        **scope_json(digest),
        "sections": sections,
        "lists": lists,
        "as_of": {"states": iso(window.end), "edits": "provenance.synced_at"},
        "later": [later_json(f) for f in digest.later],
        "provenance": {
            "generated_at": iso(digest.generated_at),
            "synced_at": iso(digest.synced_at),
            "writers": list(digest.writers),
            "fallbacks": digest.fallbacks,
            "usage": {
                "prompt_tokens": digest.usage.prompt_tokens,
                "completion_tokens": digest.usage.completion_tokens,
                "total_tokens": digest.usage.total,
            },
        },
        "notes": list(digest.notes),
    }


def dumps(digest: Digest, indent: int | None = 2) -> str:
    """The digest as JSON text (UTF-8 characters kept as they are)."""
    return json.dumps(to_json(digest), ensure_ascii=False, indent=indent) + "\n"


# -- streamed and compact output ------------------------------------------------------------


class _Stream:
    """A JSON array (``[...]``) or object (``{...}``) whose members are made as it is written."""

    def __init__(self, members: Iterable[Any], *, keyed: bool = False) -> None:
        self.members = members  # values, or (key, value) pairs when ``keyed``
        self.keyed = keyed


def _compact_span(span: dict[str, Any]) -> dict[str, Any]:
    if span["type"] != "item":
        return span
    ref = {"type": "item", "number": span["number"]}
    return {**ref, "repo": span["repo"]} if "repo" in span else ref


def _compact_block(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] == "paragraph":
        return {**block, "spans": [_compact_span(s) for s in block["spans"]]}
    if block["type"] == "bullets":
        return {**block, "items": [[_compact_span(s) for s in e] for e in block["items"]]}
    return block


def _section(section: Section, compact: bool) -> dict[str, Any]:
    found = section_json(section)
    if compact:
        found["blocks"] = [_compact_block(b) for b in found["blocks"]]
    return found


def _items_table(digest: Digest) -> Iterator[tuple[str, dict[str, Any]]]:
    """For the compact form, each item once, by number: the lists' items in full, the other
    items that sections link with their number, title and URL."""
    table: dict[tuple[str, int], Item | dict[str, Any]] = {}
    for _key, items in digest.lists:
        for item in items:
            table[digest.ref_repo(item), item.number] = item
    if not digest.lists:
        for entries in _lists_from_appendix(digest).values():
            for entry in entries:
                table.setdefault(("", entry["number"]), entry)
    for section in digest.sections:
        for span in iter_spans(section.blocks):
            if isinstance(span, ItemRef) and (span.repo, span.number) not in table:
                ref: dict[str, Any] = {"number": span.number, "title": span.title, "url": span.url}
                table[span.repo, span.number] = {**ref, "repo": span.repo} if span.repo else ref
    fates = {(f.repo, f.number): f for f in digest.later}
    for key in sorted(table):
        found = table[key]
        if isinstance(found, Item):
            yield item_id(*key), item_json(found, fates.get(key), digest.several)
        else:
            yield item_id(*key), found


def item_id(repo: str, number: int) -> str:
    """An item's key in the compact form: ``1234``, or ``owner/name#1234`` in a digest of
    several repositories."""
    return f"{repo}#{number}" if repo else str(number)


def _document(digest: Digest, compact: bool) -> _Stream:
    """``to_json(digest)``, with its sections, lists and items made while they are written."""
    sections = _Stream(_section(s, compact) for s in digest.sections)
    if compact:
        lists: Any = {
            key: [
                item_id(entry["repo"], entry["number"]) if "repo" in entry else entry["number"]
                for entry in entries
            ]
            for key, entries in _list_entries(digest)
        }
    else:
        lists = _Stream(
            ((key, _Stream(entries)) for key, entries in _list_entries(digest)), keyed=True
        )
    members: list[tuple[str, Any]] = []
    for key, value in _fields(digest, sections, lists).items():
        members.append((key, value))
        if key == "lists" and compact:
            members.append(("items", _Stream(_items_table(digest), keyed=True)))
    if compact:
        members.insert(1, ("compact", True))
    return _Stream(members, keyed=True)


def _list_entries(digest: Digest) -> Iterator[tuple[str, Iterator[dict[str, Any]]]]:
    if not digest.lists:
        yield from ((key, iter(entries)) for key, entries in _lists_from_appendix(digest).items())
        return
    given = dict(digest.lists)
    fates = {(f.repo, f.number): f for f in digest.later}
    for key in LIST_KEYS:
        yield (
            key,
            (
                item_json(item, fates.get((digest.ref_repo(item), item.number)), digest.several)
                for item in given.get(key, ())
            ),
        )


def _write(value: Any, out: TextIO, level: int) -> None:
    if not isinstance(value, _Stream):
        text = json.dumps(value, ensure_ascii=False, indent=2)
        out.write(text.replace("\n", "\n" + "  " * level) if level else text)
        return
    opening, closing = ("{", "}") if value.keyed else ("[", "]")
    inner = "  " * (level + 1)
    first = True
    for member in value.members:
        out.write(f"{opening}\n{inner}" if first else f",\n{inner}")
        first = False
        if value.keyed:
            key, member = member
            out.write(json.dumps(key, ensure_ascii=False) + ": ")
        _write(member, out, level + 1)
    out.write(f"{opening}{closing}" if first else f"\n{'  ' * level}{closing}")


def write_json(digest: Digest, out: TextIO, *, compact: bool = False) -> None:
    """The digest as JSON on ``out``, written section by section and item by item.

    Without ``compact`` the text is that of ``dumps(digest)``. With it, every item is written
    once, under ``items`` (by number, as in ``lists``); ``lists`` holds numbers and an item span
    only its ``number`` (see docs/json-schema.md).
    """
    _write(_document(digest, compact), out, 0)
    out.write("\n")
