"""Atom feeds of a repository's reports: one per language, one entry per day."""

from __future__ import annotations

from collections.abc import Sequence
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


def summary_html(digest: Digest) -> str:
    """The summary section as the report page shows it: an HTML fragment whose only links are
    the items and people (an address in the text is code, as everywhere)."""
    section = digest.section("summary")
    return "" if section is None else render_blocks(section.blocks)


def render_feed(
    repo: str, name: str, lang: Lang, feed_url: str, home_url: str, entries: Sequence[FeedEntry]
) -> str:
    """The Atom document, newest entry first; its times come from the data, not the clock."""
    ET.register_namespace("", _ATOM)
    root = ET.Element(f"{{{_ATOM}}}feed", {_XML_LANG: lang_tag(lang)})

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{_ATOM}}}{tag}", attrs)
        if text is not None:
            element.text = text
        return element

    ordered = sorted(entries, key=lambda e: e.digest.window.start, reverse=True)
    sub(root, "id", f"urn:vllm-report:{repo.lower()}:{lang}")
    sub(root, "title", site_t("site.feed_title", lang, name=name))
    newest = max((_updated(e.digest) for e in ordered), default="1970-01-01T00:00:00Z")
    sub(root, "updated", newest)
    sub(root, "link", rel="self", href=feed_url, type="application/atom+xml")
    sub(root, "link", rel="alternate", href=home_url, type="text/html")
    author = sub(root, "author")
    sub(author, "name", "vllm-report")
    sub(root, "generator", "vllm-report")
    for entry in ordered:
        digest = entry.digest
        date = title_date(digest.window)
        item = sub(root, "entry")
        sub(item, "id", f"urn:vllm-report:{repo.lower()}:{date}:{lang}")
        sub(item, "title", report_title(name, date, lang))
        sub(item, "updated", _updated(digest))
        sub(item, "link", rel="alternate", href=entry.url, type="text/html")
        sub(item, "content", summary_html(digest), type="html")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def _updated(digest: Digest) -> str:
    """When the entry's data was last brought up to date: the sync, else the window's end."""
    return iso(digest.synced_at or digest.window.end) or ""
