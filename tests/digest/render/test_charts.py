"""Charts: what they count, their labels, and the same bytes for the same data."""

from __future__ import annotations

import re
from datetime import date, timedelta

from digest.models import Counts
from digest.render.charts import (
    activity_chart,
    cjk_font,
    days_chart,
    label_lang,
    render_png,
    render_svg,
    topic_chart,
)
from tests.support.analysis_sample import sample_data

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_activity_counts_each_hour_of_the_window() -> None:
    """The day's chart has one slot per hour and counts opened issues, PRs, merges and comments."""
    data = sample_data()
    chart = activity_chart(data.window, data.items, data.comments, "en")
    assert len(chart.x_labels) == 24
    assert chart.x_labels[0] == "11"  # the window opens at 11:44 in Shanghai
    totals = {label: sum(values) for label, values in chart.series}
    in_window = sum(1 for c in data.comments if data.window.contains(c.created_at))
    assert totals == {"Opened issues": 3, "Opened PRs": 4, "Merged PRs": 2, "Comments": in_window}


def test_days_chart_counts_per_day() -> None:
    """The recent-days chart shows the five counts per day, oldest first; pending days as zero."""
    first = date(2026, 1, 30)
    days = [(first + timedelta(days=1), Counts(3, 2, 4, 2, 0)), (first, None)]
    chart = days_chart(days, "en")
    assert chart.x_labels == ("01-30", "01-31")
    assert dict(chart.series)["New PRs"] == (0, 4)
    assert "Over 1 days" in chart.summary or "Over 1 day" in chart.summary


def test_topic_chart() -> None:
    """A topic's chart has one bar per day with its item count."""
    chart = topic_chart("AMD/ROCm", [(date(2026, 1, 31), 4), (date(2026, 1, 30), 1)], "en")
    assert chart.series == (("Items", (1, 4)),)
    assert "AMD/ROCm" in chart.title


def test_chinese_labels_only_with_a_cjk_font() -> None:
    """zh charts are labelled in Chinese when a CJK font exists, else in English (never boxes)."""
    chart = topic_chart("ROCm", [(date(2026, 1, 31), 4)], "zh")
    if cjk_font() is None:
        assert label_lang("zh") == "en" and chart.lang == "en" and chart.title.isascii()
    else:
        assert chart.lang == "zh" and "每日条目" in chart.title


def test_svg_is_deterministic_and_inlinable() -> None:
    """The same data draws the same SVG bytes, without an XML prolog, with its title as text."""
    data = sample_data()
    chart = activity_chart(data.window, data.items, data.comments, "en")
    svg = render_svg(chart)
    assert svg == render_svg(chart)
    assert svg.startswith("<svg ") and svg.rstrip().endswith("</svg>")
    assert "Activity per hour" in svg
    assert "<script" not in svg


def test_png_is_deterministic() -> None:
    """The chat image is a PNG, byte-identical for the same data."""
    data = sample_data()
    chart = activity_chart(data.window, data.items, data.comments, "en")
    png = render_png(chart)
    assert png.startswith(PNG_MAGIC) and len(png) > 5000
    assert png == render_png(chart)


def test_charts_of_two_kinds_have_distinct_ids() -> None:
    """Two charts on one page never share an SVG element id, and their references still resolve."""
    one = render_svg(topic_chart("ROCm", [(date(2026, 1, 31), 4)], "en"), prefix="a-")
    two = render_svg(topic_chart("HIP", [(date(2026, 1, 31), 4)], "en"), prefix="b-")
    ids_one, ids_two = (set(re.findall(r' id="([^"]+)"', svg)) for svg in (one, two))
    assert ids_one and not ids_one & ids_two
    for svg, ids in ((one, ids_one), (two, ids_two)):
        assert set(re.findall(r'(?:url\(|href=")#([^)"]+)', svg)) <= ids  # references still resolve


def test_chart_text_is_escaped_in_svg() -> None:
    """A label with markup is text inside the SVG, never an element."""
    svg = render_svg(topic_chart("<script>alert(1)</script>", [(date(2026, 1, 31), 1)], "en"))
    assert "<script" not in svg and "&lt;script&gt;" in svg
