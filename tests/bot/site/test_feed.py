"""Atom feeds: valid Atom, one entry per day, the summary as content, stable identities."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from xml.etree import ElementTree as ET

from bot.site.feed import FeedEntry, render_feed, summary_html
from tests.support.analysis_sample import build_digest, sample_analysis

ATOM = "{http://www.w3.org/2005/Atom}"


def test_feed_lists_each_day_newest_first() -> None:
    """Each day is an entry with a stable id, its title, its page link and its summary."""
    day = build_digest(sample_analysis(), "en")
    window = dataclasses.replace(
        day.window,
        start=day.window.start - timedelta(days=1),
        end=day.window.end - timedelta(days=1),
        label="2026-01-30",
    )
    earlier = dataclasses.replace(day, window=window)
    xml = render_feed(
        "vllm-project/vllm",
        "vLLM",
        "en",
        "https://reports.example/vllm-project/vllm/feed.en.xml",
        "https://reports.example/vllm-project/vllm/",
        [
            FeedEntry(earlier, "https://x/2026-01-30/en/"),
            FeedEntry(day, "https://x/2026-01-31/en/"),
        ],
    )
    root = ET.fromstring(xml)
    assert root.tag == f"{ATOM}feed"
    assert root.get("{http://www.w3.org/XML/1998/namespace}lang") == "en"
    entries = root.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}id") for e in entries] == [
        "urn:vllm-report:vllm-project/vllm:2026-01-31:en",
        "urn:vllm-report:vllm-project/vllm:2026-01-30:en",
    ]
    first = entries[0]
    assert first.findtext(f"{ATOM}title") == "vLLM Development Report - 2026-01-31"
    assert first.find(f"{ATOM}link").get("href") == "https://x/2026-01-31/en/"  # type: ignore[union-attr]
    content = first.find(f"{ATOM}content")
    assert content is not None and content.get("type") == "html"
    assert content.text == summary_html(day)
    assert content.text.startswith("<p>") and '<a href="https://github.com/' in content.text
    assert root.findtext(f"{ATOM}updated") == "2026-02-01T03:49:00Z"  # the sync, not the clock


def test_hostile_summary_stays_text() -> None:
    """Markup in the summary is escaped twice over (HTML inside XML text), never elements; an
    outside address is code, never a link."""
    from digest.models import Paragraph, Section, Text

    day = build_digest(sample_analysis(), "zh")
    hostile = "<script>alert(1)</script> & ]]> see evil.example/fix.sh"
    evil = Section("summary", "x", (Paragraph((Text(hostile),)),))
    day = dataclasses.replace(day, sections=(evil,))
    xml = render_feed("o/r", "r", "zh", "feed.zh.xml", "./", [FeedEntry(day, "2026-01-31/zh/")])
    content = ET.fromstring(xml).find(f"{ATOM}entry/{ATOM}content")
    assert content is not None and len(content) == 0
    assert content.text == (
        "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; ]]&gt; "
        "see <code>evil.example/fix.sh</code></p>"
    )
    assert "<script" not in content.text and "<a " not in content.text
