"""Archive pages over a multi-month span: every month and year links its days and months,
each topic's page lists its days newest first, and its feeds are valid Atom."""

from __future__ import annotations

import posixpath
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from xml.etree import ElementTree as ET

from bot.site.archive import ArchiveDay, ArchiveIndex, ArchiveWriter, SiteTopic, archive_day
from bot.site.output import Output
from bot.site.routes import Routes
from digest.models import Counts, Lang
from digest.render.archive import TopicItem
from digest.render.charts import label_lang

ATOM = "{http://www.w3.org/2005/Atom}"
BASE = "vllm-project/vllm"
FIRST, LAST = date(2025, 11, 20), date(2026, 2, 10)  # four months over two years
ROCM = SiteTopic("rocm", {Lang.ZH: "AMD/ROCm 生态相关动态", Lang.EN: "AMD/ROCm ecosystem"})


def _span(first: date = FIRST) -> list[ArchiveDay]:
    days = []
    for n in range((LAST - first).days + 1):
        when = first + timedelta(days=n)
        items = (
            TopicItem(1000 + n, f"ROCm fix {n}", f"https://github.com/{BASE}/pull/{1000 + n}"),
        )
        end = datetime(when.year, when.month, when.day, 3, 21, tzinfo=UTC) + timedelta(days=1)
        days.append(
            ArchiveDay(
                when,
                (Lang.ZH, Lang.EN),
                Counts(n, 1, 2, 1, 0),
                {Lang.ZH: f"第 {n} 天。", Lang.EN: f"Day {n}."},
                {"rocm": items if n % 3 == 0 else ()},
                end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            )
        )
    return days


def _write(
    tmp_path: Path, site_url: str | None = None, first: date = FIRST
) -> tuple[Path, ArchiveIndex]:
    output = Output(tmp_path / "site")
    writer = ArchiveWriter(
        output,
        repo="vllm-project/vllm",
        name="vLLM",
        repo_url="https://github.com/vllm-project/vllm",
        langs=(Lang.ZH, Lang.EN),
        routes=Routes(site_url),
    )
    index = writer.write(_span(first), (ROCM,))
    output.commit()
    return tmp_path / "site", index


def _links(page: Path, site: Path) -> list[str]:
    """The page's internal links, as site paths (``vllm-project/vllm/2026-01-02/zh/``)."""
    here = page.parent.relative_to(site).as_posix()
    out = []
    for href in re.findall(r'href="([^"]+)"', page.read_text("utf-8")):
        if href.startswith(("https:", "data:")):
            continue
        path, _, _ = href.partition("#")
        out.append(
            posixpath.normpath(posixpath.join(here, path)) + ("/" if path.endswith("/") else "")
        )
    return out


def test_month_pages_link_every_day_of_their_month(tmp_path: Path) -> None:
    """Each month has a page per language listing each of its days, linked to the day's pages."""
    site, _ = _write(tmp_path)
    for year, month, count in ((2025, 11, 11), (2025, 12, 31), (2026, 1, 31), (2026, 2, 10)):
        for lang in ("zh", "en"):
            page = site / BASE / f"{year}" / f"{month:02d}" / lang / "index.html"
            links = _links(page, site)
            days = sorted({x for x in links if re.search(r"/\d{4}-\d{2}-\d{2}/\w\w/$", x)})
            assert len(days) == 2 * count, page
            assert all(x.startswith(f"{BASE}/{year}-{month:02d}-") for x in days)
            assert f"{BASE}/" in links  # back to the repository
            assert f"{BASE}/{year}/{lang}/" in links  # up to the year
    zh = (site / BASE / "2026" / "01" / "zh" / "index.html").read_text("utf-8")
    en = (site / BASE / "2026" / "01" / "en" / "index.html").read_text("utf-8")
    assert "2026 年 1 月" in zh and "第 42 天。" in zh
    assert "January 2026" in en and "Day 42." in en and "第 42 天" not in en


def test_year_pages_link_every_month_with_counts(tmp_path: Path) -> None:
    """A year's page links each of its months in the same language, with days and counts."""
    site, index = _write(tmp_path)
    page = site / BASE / "2025" / "en" / "index.html"
    assert [x for x in _links(page, site) if re.search(r"/2025/\d\d/", x)] == [
        f"{BASE}/2025/11/en/",
        f"{BASE}/2025/12/en/",
    ]
    text = page.read_text("utf-8")
    assert "11 days of reports" in text and "31 days of reports" in text
    assert [m.label for m in index.months] == [
        "2026 年 2 月",
        "2026 年 1 月",
        "2025 年 12 月",
        "2025 年 11 月",
    ]
    february = index.months[0]
    assert february.days == 10 and february.counts.new_issues == sum(range(73, 83))
    assert [y.pages[0][1] for y in index.years] == ["2026/zh/", "2025/zh/"]


def test_topic_page_lists_its_days_newest_first(tmp_path: Path) -> None:
    """The topic's page links each day that cited its items, at the topic's section."""
    site, index = _write(tmp_path)
    assert index.topics == (("AMD/ROCm 生态相关动态", "topics/rocm/zh/"),)
    page = site / BASE / "topics" / "rocm" / "en" / "index.html"
    text = page.read_text("utf-8")
    day_links = re.findall(r'href="(\.\./\.\./\.\./[^"]+)"', text)
    expected = [
        f"../../../{FIRST + timedelta(days=n)}/en/#topic-rocm"
        for n in reversed(range((LAST - FIRST).days + 1))
        if n % 3 == 0
    ]
    assert [x for x in day_links if "#" in x] == expected
    assert (
        "ROCm fix 81" in text and "data-pagefind-body" in text and 'id="chart-topic-rocm"' in text
    )


def test_topic_feeds_are_valid_atom(tmp_path: Path) -> None:
    """One feed per language: an id, title, updated and links; each entry complete and absolute."""
    site, _ = _write(tmp_path, site_url="https://reports.example/")
    for lang in ("zh", "en"):
        root = ET.parse(site / BASE / "topics" / "rocm" / f"feed.{lang}.xml").getroot()
        assert root.tag == f"{ATOM}feed"
        assert root.get("{http://www.w3.org/XML/1998/namespace}lang") in ("zh-CN", "en")
        for tag in ("id", "title", "updated"):
            assert root.findtext(f"{ATOM}{tag}"), tag
        assert root.find(f"{ATOM}author/{ATOM}name") is not None
        links = {x.get("rel"): x.get("href") for x in root.findall(f"{ATOM}link")}
        assert links["self"] == f"https://reports.example/{BASE}/topics/rocm/feed.{lang}.xml"
        assert links["alternate"] == f"https://reports.example/{BASE}/topics/rocm/{lang}/"
        entries = root.findall(f"{ATOM}entry")
        assert len(entries) == 28  # every third day of 83
        ids = [e.findtext(f"{ATOM}id") for e in entries]
        assert len(set(ids)) == len(ids)
        newest = entries[0]
        assert newest.findtext(f"{ATOM}updated") == root.findtext(f"{ATOM}updated")
        assert newest.find(f"{ATOM}link").get("href") == (  # type: ignore[union-attr]
            f"https://reports.example/{BASE}/2026-02-09/{lang}/#topic-rocm"
        )
        content = newest.find(f"{ATOM}content")
        assert content is not None and content.get("type") == "html"
        assert "pull/1081" in (content.text or "")
        for entry in entries:
            updated = entry.findtext(f"{ATOM}updated") or ""
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", updated)


def test_a_day_is_read_back_from_its_record() -> None:
    """A carried-over day's counts, summaries and topic items come from the manifest's record."""
    record = {
        "counts": {
            "new_issues": 3,
            "closed_issues": 1,
            "new_prs": 2,
            "merged_prs": 1,
            "closed_unmerged_prs": 0,
        },
        "summary": "旧摘要。",
        "summaries": {"zh": "中文摘要。", "en": "English summary."},
        "topics": {"rocm": [[7, "t", "https://github.com/o/r/pull/7"]], "bad": [["x"]]},
    }
    day = archive_day(date(2026, 1, 2), (Lang.ZH,), record, "2026-01-03T03:21:00Z")
    assert day.counts == Counts(3, 1, 2, 1, 0)
    assert day.summaries["en"] == "English summary."
    assert day.topics == {"rocm": (TopicItem(7, "t", "https://github.com/o/r/pull/7"),)}
    old = archive_day(date(2026, 1, 2), (Lang.ZH,), {"summary": "旧摘要。"}, "")
    assert old.counts is None and old.summaries == {"": "旧摘要。"} and old.topics == {}


def _chart_labels(page: Path) -> list[str]:
    """The first column of the chart's data table: one row per day or month charted."""
    text = page.read_text("utf-8")
    table = text[text.index('class="chart-data"') :]
    return re.findall(r'<tr><th scope="row">([^<]+)</th>', table)


def test_topic_chart_covers_the_whole_history(tmp_path: Path) -> None:
    """Over 83 days the topic's chart has a bar per day, all of them (not the last 30)."""
    site, _ = _write(tmp_path)
    labels = _chart_labels(site / BASE / "topics" / "rocm" / "en" / "index.html")
    assert len(labels) == 83 and labels[0] == "11-20" and labels[-1] == "02-10"


def test_a_long_topic_history_is_charted_by_month_and_its_feed_is_bounded(
    tmp_path: Path,
) -> None:
    """Over 255 days the topic's chart has a bar per month, each the month's items; the feed
    carries the newest 60 days that cited the topic."""
    site, _ = _write(tmp_path, first=date(2025, 6, 1))
    page = site / BASE / "topics" / "rocm" / "en" / "index.html"
    labels = _chart_labels(page)
    assert labels == [f"2025-{m:02d}" for m in range(6, 13)] + ["2026-01", "2026-02"]
    text = page.read_text("utf-8")
    assert "items per month" in text and "85 items over 9 months." in text
    june = text[text.index('<th scope="row">2025-06</th>') :]
    assert june.startswith('<th scope="row">2025-06</th><td>10</td>')  # days 0, 3, .., 27
    zh = (site / BASE / "topics" / "rocm" / "zh" / "index.html").read_text("utf-8")
    words = "9 个月内共 85 条相关条目。" if label_lang(Lang.ZH) == Lang.ZH else "85 items over 9"
    assert words in zh
    feed = ET.parse(site / BASE / "topics" / "rocm" / "feed.en.xml").getroot()
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 60
    assert (
        entries[0].findtext(f"{ATOM}id", "").endswith(":2026-02-08:en")
    )  # every third day from June 1st
