"""The window's items as the tools show them: pure functions of the mirror's window data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.mcp.items import EXCERPT, LATEST, Filters, discussion, matching, state_of
from digest.analysis.types import WindowData
from digest.models import Comment, CommentKind, Item, ItemKind, ItemState, Window

REPO = "o/r"
END = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
WINDOW = Window(END - timedelta(days=1), END)


def _item(number: int, *, pr: bool = False, merged: bool = False, before: bool = False) -> Item:
    created = END - timedelta(days=3 if before else 0, hours=5)
    return Item(
        repo=REPO,
        number=number,
        kind=ItemKind.PR if pr else ItemKind.ISSUE,
        title=f"Item {number}",
        author="alice",
        author_is_bot=False,
        labels=(),
        state=ItemState.CLOSED if merged else ItemState.OPEN,
        state_reason=None,
        created_at=created,
        updated_at=END - timedelta(hours=1),
        closed_at=END - timedelta(hours=1) if merged else None,
        merged_at=END - timedelta(hours=1) if merged else None,
        url=f"https://github.com/{REPO}/issues/{number}",
    )


def _comment(cid: int, number: int, login: str, hours: float, **kw: object) -> Comment:
    at = END - timedelta(hours=hours)
    return Comment(
        repo=REPO,
        id=cid,
        item_number=number,
        author=login,
        author_is_bot=login.endswith("[bot]"),
        body_excerpt=str(kw.pop("body", "a point")),
        created_at=at,
        updated_at=at,
        url=f"https://github.com/{REPO}/issues/{number}#c{cid}",
        **kw,  # type: ignore[arg-type]
    )


def test_state_of_a_merged_pr_is_merged() -> None:
    """A merged PR reads `merged`, an open issue `open`."""
    assert state_of(_item(1, pr=True, merged=True)) == "merged"
    assert state_of(_item(2)) == "open"


def test_an_old_item_counts_only_when_commented_on_in_the_window() -> None:
    """An item created before the window is listed when someone commented in it, and the
    review comments are counted apart; bots count for nothing."""
    items = (_item(1, before=True), _item(2, before=True), _item(3, pr=True))
    comments = (
        _comment(10, 1, "bob", 2),
        _comment(11, 1, "ci[bot]", 1),
        _comment(12, 3, "carol", 3, kind=CommentKind.REVIEW, path="a.py"),
    )
    rows = matching(WindowData(REPO, "u", WINDOW, items, comments), Filters())
    assert [(r.number, r.comments, r.review_comments) for r in rows] == [(1, 1, 0), (3, 1, 1)]


def test_a_discussion_shows_the_latest_comments_shortened() -> None:
    """Only the latest few comments are quoted, each cut to a bounded length."""
    item = _item(1)
    long = "word " * 200
    comments = tuple(_comment(i, 1, f"p{i % 3}", 20 - i, body=long) for i in range(10))
    talk = discussion(item, WindowData(REPO, "u", WINDOW, (item,), comments))
    assert talk.comments == 10 and len(talk.latest) == LATEST
    assert talk.latest[-1].at == "2026-03-10T16:21:00Z"  # the newest: 11 hours before the end
    assert all(len(r.excerpt) <= EXCERPT and r.excerpt.endswith("…") for r in talk.latest)
    assert talk.participants == ["p0", "p1", "p2"]
