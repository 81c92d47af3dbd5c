"""Ranking the found items: relevance first, then the day of the latest activity, then heat."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from config.settings import load_config
from digest.analysis.types import WindowData
from digest.ask import RepoInfo, find, parse_question
from digest.models import Comment, Item, ItemKind, ItemState, Window

END = datetime(2026, 3, 11, 12, 0, tzinfo=UTC)
WINDOW = Window(END - timedelta(days=7), END, "UTC", "7d", ends_now=True)
CONFIG = load_config()
TOPICS = tuple(CONFIG.topic(name) for name in CONFIG.topics)


def _item(number: int, title: str, created: datetime, body: str = "") -> Item:
    return Item(
        repo="o/r",
        number=number,
        kind=ItemKind.ISSUE,
        title=title,
        author="alice",
        author_is_bot=False,
        labels=(),
        state=ItemState.OPEN,
        state_reason=None,
        created_at=created,
        updated_at=created,
        closed_at=None,
        merged_at=None,
        url=f"https://github.com/o/r/issues/{number}",
        body_excerpt=body,
    )


def _comment(cid: int, number: int, at: datetime, login: str = "bob") -> Comment:
    return Comment("o/r", cid, number, login, login.endswith("[bot]"), "+1", at, at, "")


def _ask(text: str, data: WindowData) -> list[int]:
    question = parse_question(
        text,
        now=END,
        topics=TOPICS,
        repos=(RepoInfo("o/r", timezone="UTC"),),
        default_repo="o/r",
    )
    assert question.when.window == WINDOW
    return [hit.item.number for hit in find(data, question).hits]


def test_relevance_then_recent_day_then_heat() -> None:
    """Tagged items beat a body-only mention; among equals the newer day wins, then comments
    by people (bots do not count)."""
    day = timedelta(days=1)
    items = (
        _item(1, "[ROCm] old tagged work", END - 6 * day),
        _item(2, "Refactor the sampler", END - timedelta(hours=1), "This changes the ROCm path."),
        _item(3, "[ROCm] two days ago", END - 2 * day),
        _item(4, "[ROCm] yesterday", END - day),
        _item(5, "[ROCm] today, one comment", END - timedelta(hours=3)),
        _item(6, "[ROCm] today, three comments", END - timedelta(hours=4)),
    )
    comments = (
        _comment(10, 5, END - timedelta(hours=2)),
        *(_comment(11 + i, 5, END - timedelta(hours=2), "mergify[bot]") for i in range(5)),
        *(_comment(20 + i, 6, END - timedelta(hours=2), f"dev{i}") for i in range(3)),
    )
    data = WindowData("o/r", "https://github.com/o/r", WINDOW, items, comments)
    assert _ask("what's new in ROCm?", data) == [6, 5, 4, 3, 1, 2]


def test_hot_questions_rank_by_heat_first() -> None:
    """Asking for discussions puts the most commented item first, whatever its relevance."""
    items = (
        _item(1, "[ROCm] quiet tagged issue", END - timedelta(hours=5)),
        _item(2, "Refactor the sampler", END - timedelta(hours=5), "This changes the ROCm path."),
    )
    comments = (
        _comment(10, 1, END - timedelta(hours=1)),
        *(_comment(20 + i, 2, END - timedelta(hours=1), f"dev{i}") for i in range(4)),
    )
    data = WindowData("o/r", "https://github.com/o/r", WINDOW, items, comments)
    assert _ask("hot ROCm discussions", data) == [2, 1]
