"""The catalog: every phrase by key in zh and en, filled once."""

from __future__ import annotations

import pytest

from digest.i18n import Note, pick, t
from digest.models import Lang


def test_a_pair_is_picked_by_language() -> None:
    """The first of a (zh, en) pair is Chinese, the second English."""
    assert pick(("中文", "English"), Lang.ZH) == "中文"
    assert pick(("中文", "English"), Lang.EN) == "English"


def test_values_are_not_parsed_again() -> None:
    """A value that looks like a placeholder is inserted literally."""
    assert t("report.title", "en", name="{date}", date="2026-03-10") == (
        "{date} Development Report - 2026-03-10"
    )


def test_one_thing_takes_the_singular() -> None:
    """A count of one picks the phrase's ``.one`` variant."""
    assert t("summary.topic", "en", 1, topic="ROCm", groups="x") == "There was 1 ROCm item (x)."
    assert t("summary.topic", "en", 2, n=2, topic="ROCm", groups="x") == (
        "There were 2 ROCm items (x)."
    )


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            "review comments of 2026-03-10..2026-03-11 were not fetched (over the request "
            "budget); hot discussions may be incomplete",
        ),
        ("zh", "2026-03-10..2026-03-11 的代码审查评论未获取（超出请求预算），热门讨论可能不完整"),
    ],
)
def test_a_note_is_said_in_the_readers_language(lang: str, expected: str) -> None:
    """A sync's note is kept as a key and values and said in each reader's language; what is
    missing is named from the catalog too."""
    note = Note(
        "sync.comments_skipped",
        (("what", "stream.review_comments"), ("span", "2026-03-10..2026-03-11")),
    )
    assert note.text(lang) == expected
