"""Small builders of items and comments for store tests."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from digest.models import Comment, CommentKind, Item, ItemKind, ItemState

T0 = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
REPO = "vllm-project/vllm"


def at(hours: float) -> datetime:
    """``T0`` plus ``hours``."""
    return T0 + timedelta(hours=hours)


def item(number: int, repo: str = REPO, **changes: Any) -> Item:
    """An open issue created at ``T0`` unless told otherwise."""
    base = Item(
        repo=repo,
        number=number,
        kind=ItemKind.ISSUE,
        title=f"Item {number}: [ROCm] crash on MI300X",
        author="alice",
        author_is_bot=False,
        labels=("bug", "rocm"),
        state=ItemState.OPEN,
        state_reason=None,
        created_at=T0,
        updated_at=T0,
        closed_at=None,
        merged_at=None,
        url=f"https://github.com/{repo}/issues/{number}",
        body_excerpt="Traceback: 中文 ✓",
        comments_total=3,
        draft=False,
        author_association="CONTRIBUTOR",
    )
    return replace(base, **changes)


def comment(comment_id: int, repo: str = REPO, **changes: Any) -> Comment:
    """A human comment on item 1 created at ``T0`` unless told otherwise."""
    base = Comment(
        repo=repo,
        id=comment_id,
        item_number=1,
        author="bob",
        author_is_bot=False,
        body_excerpt="LGTM <b>&</b>",
        created_at=T0,
        updated_at=T0,
        url=f"https://github.com/{repo}/issues/1#issuecomment-{comment_id}",
    )
    return replace(base, **changes)


def review_comment(comment_id: int, repo: str = REPO, **changes: Any) -> Comment:
    """A human inline review comment on PR 1 created at ``T0`` unless told otherwise."""
    base = Comment(
        repo=repo,
        id=comment_id,
        item_number=1,
        author="dave",
        author_is_bot=False,
        body_excerpt="This branch skips the MI300X path.",
        created_at=T0,
        updated_at=T0,
        url=f"https://github.com/{repo}/pull/1#discussion_r{comment_id}",
        kind=CommentKind.REVIEW,
        path="vllm/attention/backends/rocm.py",
    )
    return replace(base, **changes)
