"""Archive pages render escaped: a hostile title is text, a non-http(s) URL is not linked."""

from __future__ import annotations

from digest.models import Counts, Lang
from digest.render.archive import (
    PeriodPage,
    TopicDay,
    TopicItem,
    TopicPage,
    render_period,
    render_topic,
    render_topic_items,
)
from digest.render.html import DayEntry, Nav, PeriodEntry

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def test_topic_items_are_escaped_and_only_http_links() -> None:
    """Titles are escaped; an item whose URL is not http(s) is shown unlinked."""
    html = render_topic_items(
        [
            TopicItem(1, HOSTILE, "https://github.com/o/r/issues/1"),
            TopicItem(2, "bad", "javascript:alert(3)"),
        ]
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="https://github.com/o/r/issues/1"' in html
    assert "javascript:" not in html and "#2 bad" in html


def test_topic_page_has_its_days_feed_and_other_language() -> None:
    """The topic page links each day, its feed and the other language; it is searchable."""
    page = TopicPage(
        "o/r",
        "R",
        "https://github.com/o/r",
        "R 报告：主题",
        "主题",
        (TopicDay("2026-03-02", "../../../2026-03-02/zh/#topic-t", (TopicItem(5, HOSTILE, "x"),)),),
        feed="../feed.zh.xml",
        other_lang="../en/",
    )
    html = render_topic(page, Nav(root="../../../../../", lang=Lang.ZH, repo_index="../../../"))
    assert 'href="../../../2026-03-02/zh/#topic-t"' in html
    assert 'href="../feed.zh.xml"' in html and 'href="../en/"' in html
    assert "data-pagefind-body" in html and "<img src=x" not in html
    assert "2026-03-02 报告中的主题" in html and "1 条相关条目" in html


def test_period_pages_list_days_or_months() -> None:
    """A month lists its days with counts and summaries; a year lists its months."""
    month = PeriodPage(
        "o/r",
        "R",
        "https://github.com/o/r",
        "R reports: March 2026",
        days=(
            DayEntry(
                "2026-03-01",
                ((Lang.EN, "../../../2026-03-01/en/"),),
                Counts(1, 2, 3, 4, 5),
                HOSTILE,
            ),
        ),
        up=("2026", "../../en/"),
    )
    html = render_period(month, Nav(root="../../../../../", lang=Lang.EN, repo_index="../../../"))
    assert 'href="../../../2026-03-01/en/"' in html and 'href="../../en/"' in html
    assert "<script>alert" not in html and "data-pagefind-body" not in html
    year = PeriodPage(
        "o/r",
        "R",
        "https://github.com/o/r",
        "R reports: 2026",
        periods=(PeriodEntry("March 2026", ((Lang.EN, "../03/en/"),), 31, Counts(1, 1, 1, 1, 1)),),
    )
    html = render_period(year, Nav(root="../../../../", lang=Lang.EN, repo_index="../../"))
    assert 'href="../03/en/"' in html and "31 days of reports" in html
