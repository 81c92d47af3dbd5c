"""Atom feeds of a repository's reports (one per language, one entry per day) and of its topics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from digest.i18n import lang_tag, report_title
from digest.i18n.site import site_t
from digest.models import Digest, Lang
from digest.render.html import render_blocks
from digest.render.json import iso
from digest.windows import title_date

_ATOM = "http://www.w3.org/2005/Atom"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One day's report in a feed: the digest and the page's URL."""

    digest: Digest
    url: str  # absolute when the site URL is known, else relative to the feed

    @staticmethod
    def of(record: Mapping[str, str], url: str) -> DayFeedEntry:
        """A day's entry from what the site's manifest recorded of it (``feed_record``)."""
        return DayFeedEntry(
            record["date"], record["start"], record["updated"], record["content"], url
        )


@dataclass(frozen=True, slots=True)
class DayFeedEntry:
    """One day's report in a feed as recorded: no digest needed to write it again."""

    date: str  # the report date
    start: str  # when its window started (RFC 3339): the feed's order
    updated: str  # RFC 3339
    content: str  # the summary as an HTML fragment
    url: str


def feed_record(digest: Digest) -> dict[str, str]:
    """What a feed needs of a day's digest, as the site's manifest keeps it."""
    return {
        "date": title_date(digest.window),
        "start": iso(digest.window.start) or "",
        "updated": _updated(digest),
        "content": summary_html(digest),
    }


def _entry(entry: FeedEntry | DayFeedEntry) -> DayFeedEntry:
    if isinstance(entry, DayFeedEntry):
        return entry
    return FeedEntry.of(feed_record(entry.digest), entry.url)


def summary_html(digest: Digest) -> str:
    """The summary section as the report page shows it: an HTML fragment whose only links are
    the items and people (an address in the text is code, as everywhere)."""
    section = digest.section("summary")
    return "" if section is None else render_blocks(section.blocks, digest.lang)


@dataclass(frozen=True, slots=True)
class AtomEntry:
    """One entry of an Atom feed, as written."""

    id: str
    title: str
    updated: str  # RFC 3339
    url: str
    content: str  # an HTML fragment


def render_feed(
    repo: str,
    name: str,
    lang: Lang,
    feed_url: str,
    home_url: str,
    entries: Sequence[FeedEntry | DayFeedEntry],
) -> str:
    """The Atom document, newest entry first; its times come from the data, not the clock."""
    ordered = sorted(map(_entry, entries), key=lambda e: e.start, reverse=True)
    atom = [
        AtomEntry(
            f"urn:vllm-report:{repo.lower()}:{entry.date}:{lang}",
            report_title(name, entry.date, lang),
            entry.updated,
            entry.url,
            entry.content,
        )
        for entry in ordered
    ]
    feed_id = f"urn:vllm-report:{repo.lower()}:{lang}"
    title = site_t("site.feed_title", lang, name=name)
    return render_atom(feed_id, title, lang, feed_url, home_url, atom)


def render_atom(
    feed_id: str,
    title: str,
    lang: Lang,
    feed_url: str,
    home_url: str,
    entries: Sequence[AtomEntry],
) -> str:
    """An Atom document of ``entries`` in their order; ``updated`` is the newest entry's."""
    ET.register_namespace("", _ATOM)
    root = ET.Element(f"{{{_ATOM}}}feed", {_XML_LANG: lang_tag(lang)})

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{_ATOM}}}{tag}", attrs)
        if text is not None:
            element.text = text
        return element

    sub(root, "id", feed_id)
    sub(root, "title", title)
    newest = max((e.updated for e in entries), default="1970-01-01T00:00:00Z")
    sub(root, "updated", newest)
    sub(root, "link", rel="self", href=feed_url, type="application/atom+xml")
    sub(root, "link", rel="alternate", href=home_url, type="text/html")
    author = sub(root, "author")
    sub(author, "name", "vllm-report")
    sub(root, "generator", "vllm-report")
    for entry in entries:
        item = sub(root, "entry")
        sub(item, "id", entry.id)
        sub(item, "title", entry.title)
        sub(item, "updated", entry.updated)
        sub(item, "link", rel="alternate", href=entry.url, type="text/html")
        sub(item, "content", entry.content, type="html")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def _updated(digest: Digest) -> str:
    """When the entry's data was last brought up to date: the sync, else the window's end."""
    return iso(digest.synced_at or digest.window.end) or ""
