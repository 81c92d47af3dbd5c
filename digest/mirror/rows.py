"""Items and comments as JSON-ready dicts (times in UTC microseconds), for caches and stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from digest.models import Comment, CommentKind, Item, ItemKind, ItemState

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_micros(moment: datetime) -> int:
    """An aware datetime as integer microseconds since the epoch."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime; the store needs timezone-aware moments")
    return (moment - _EPOCH) // timedelta(microseconds=1)


def from_micros(value: int) -> datetime:
    """Integer microseconds since the epoch as an aware UTC datetime."""
    return _EPOCH + timedelta(microseconds=value)


def opt_micros(moment: datetime | None) -> int | None:
    return None if moment is None else to_micros(moment)


def opt_moment(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def item_to_dict(item: Item) -> dict[str, Any]:
    """Every field of ``item`` but its repository and number (the caller's key)."""
    return {
        "kind": item.kind.value,
        "title": item.title,
        "author": item.author,
        "author_is_bot": item.author_is_bot,
        "labels": list(item.labels),
        "state": item.state.value,
        "state_reason": item.state_reason,
        "created_at": to_micros(item.created_at),
        "updated_at": to_micros(item.updated_at),
        "closed_at": opt_micros(item.closed_at),
        "merged_at": opt_micros(item.merged_at),
        "url": item.url,
        "body_excerpt": item.body_excerpt,
        "comments_total": item.comments_total,
        "draft": item.draft,
        "author_association": item.author_association,
        "fixes": list(item.fixes),
    }


def item_from_dict(repo: str, number: int, data: dict[str, Any]) -> Item:
    """The item that :func:`item_to_dict` wrote."""
    return Item(
        repo=repo,
        number=number,
        kind=ItemKind(data["kind"]),
        title=data["title"],
        author=data["author"],
        author_is_bot=data["author_is_bot"],
        labels=tuple(data["labels"]),
        state=ItemState(data["state"]),
        state_reason=data["state_reason"],
        created_at=from_micros(data["created_at"]),
        updated_at=from_micros(data["updated_at"]),
        closed_at=opt_moment(data["closed_at"]),
        merged_at=opt_moment(data["merged_at"]),
        url=data["url"],
        body_excerpt=data["body_excerpt"],
        comments_total=data["comments_total"],
        draft=data["draft"],
        author_association=data["author_association"],
        fixes=tuple(data.get("fixes") or ()),
    )


def comment_to_dict(comment: Comment) -> dict[str, Any]:
    """Every field of ``comment`` but its repository and id (the caller's key)."""
    return {
        "item_number": comment.item_number,
        "author": comment.author,
        "author_is_bot": comment.author_is_bot,
        "body_excerpt": comment.body_excerpt,
        "created_at": to_micros(comment.created_at),
        "updated_at": to_micros(comment.updated_at),
        "url": comment.url,
        "kind": comment.kind.value,
        "path": comment.path,
        "in_reply_to_id": comment.in_reply_to_id,
        "author_association": comment.author_association,
    }


def comment_from_dict(repo: str, comment_id: int, data: dict[str, Any]) -> Comment:
    """The comment that :func:`comment_to_dict` wrote (rows written before review comments
    existed read as conversation comments)."""
    return Comment(
        repo=repo,
        id=comment_id,
        item_number=data["item_number"],
        author=data["author"],
        author_is_bot=data["author_is_bot"],
        body_excerpt=data["body_excerpt"],
        created_at=from_micros(data["created_at"]),
        updated_at=from_micros(data["updated_at"]),
        url=data["url"],
        kind=CommentKind(data.get("kind") or CommentKind.CONVERSATION.value),
        path=data.get("path") or "",
        in_reply_to_id=data.get("in_reply_to_id"),
        author_association=data.get("author_association") or "",
    )
