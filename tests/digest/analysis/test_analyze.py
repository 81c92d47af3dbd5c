"""The whole analysis on the real sample and on a synthetic vLLM-sized day."""

from __future__ import annotations

from functools import cache

import pytest

from digest.analysis.analyze import active_items, analyze
from digest.analysis.types import Analysis, WindowData
from digest.github.parse import comment_from_api, item_from_api
from digest.models import Counts, Window
from tests.support.analysis_sample import REPO, REPO_URL, rocm, sample_analysis, sample_data
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate


@cache
def _synthetic() -> Dataset:
    return generate(days=2, now=DEFAULT_NOW, seed=7, repo=REPO)


@cache
def _synthetic_day(k: int) -> Analysis:
    data = _synthetic()
    start, end = data.day(k)
    window = Window(start, end, "Asia/Shanghai", f"day-{k}")
    items = tuple(item_from_api(row, REPO) for row in data.issues)
    comments = tuple(
        c
        for c in (comment_from_api(row, REPO) for row in data.comments)
        if window.contains(c.created_at)
    )
    return analyze(WindowData(REPO, REPO_URL, window, items, comments), (rocm(),))


def test_only_items_touched_in_the_window() -> None:
    """Rows neither created, closed, merged nor commented on in the window are left out."""
    numbers = {item.number for item in active_items(sample_data())}
    assert numbers == {22808, 32492, 33091, 33463, 33473, 33478, 33480, 33490, 33492, 33497}


def test_analysis_carries_the_active_items() -> None:
    """The analysis holds the window's active items, computed once for every section."""
    assert sample_analysis().items == active_items(sample_data())


def test_sample_topic_items() -> None:
    """The sample's ROCm section holds the four ROCm items touched in the window."""
    match = sample_analysis().topics[0]
    assert {hit.item.number for hit in match.items} == {32492, 33463, 33478, 33492}
    groups = {hit.item.number: hit.group for hit in match.items}
    assert groups == {32492: "performance", 33463: "fixes", 33478: "ecosystem", 33492: "ecosystem"}


def test_sample_counts() -> None:
    """analyze() reports the rule counts of the sample (see test_counts)."""
    assert sample_analysis().counts == Counts(3, 2, 4, 2, 0)


@pytest.mark.parametrize("k", [0, 1])
def test_synthetic_counts_exact(k: int) -> None:
    """On a synthetic vLLM-sized day the counts equal the generator's, edges included."""
    data = _synthetic()
    assert _synthetic_day(k).counts == data.expected_counts(*data.day(k))


@pytest.mark.parametrize("k", [0, 1])
def test_synthetic_rocm_precision_and_recall(k: int) -> None:
    """Every ROCm item of the day is found and no trap word matches."""
    analysis = _synthetic_day(k)
    found = {hit.item.number for hit in analysis.topics[0].items}
    touched = {item.number for item in active_items(analysis.data)}
    data = _synthetic()
    assert found == data.rocm_numbers & touched
    assert not found & data.trap_numbers


@pytest.mark.parametrize("k", [0, 1])
def test_synthetic_hot_discussions(k: int) -> None:
    """The hot list is the day's most discussed items by humans, with human participants only."""
    analysis = _synthetic_day(k)
    data = _synthetic()
    start, end = data.day(k)
    assert [h.item.number for h in analysis.hot] == data.most_discussed(start, end)
    people = data.participants(start, end)
    for hot in analysis.hot:
        assert set(hot.participants) == people[hot.item.number]
        assert not set(hot.participants) & data.bot_logins


def test_synthetic_bot_comments_are_counted_apart() -> None:
    """Human and bot comments of the day are told apart in the activity figures."""
    analysis = _synthetic_day(0)
    data = _synthetic()
    humans = sum(data.human_comment_counts(*data.day(0)).values())
    assert analysis.activity.comments == humans
    assert analysis.activity.bot_comments > 0
