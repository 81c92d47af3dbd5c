"""HTML pages of the report website: pure functions of the digest model and the site's indexes.

Jinja2 renders them with autoescape on, so every string from GitHub is escaped; links go only to
http(s) URLs (``safe_url``), and an address in text is shown as ``<code>``, never linked
(``digest.render.unlinked``); the only markup not escaped is the SVG of a chart, which
``digest.render.charts`` writes from counts and fixed labels, every label escaped.
Every page carries a Content-Security-Policy: report and index pages run no script at all; the
search page runs only the site's own files.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from digest.analysis.types import LIST_KEYS
from digest.i18n import count_label, counts_line, digest_title, fallbacks_text, lang_tag, other, t
from digest.i18n.site import site_t
from digest.models import (
    Block,
    BulletList,
    Counts,
    Digest,
    Inline,
    ItemRef,
    Lang,
    Link,
    Paragraph,
    Pointer,
    Section,
    Subheading,
    Text,
    UserRef,
)
from digest.render.charts import Chart, render_svg
from digest.render.markdown import safe_url
from digest.render.unlinked import unlinked
from digest.windows import format_moment, format_window

CSP_STATIC = (
    "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "base-uri 'none'; form-action 'self'"
)
CSP_SEARCH = (
    "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'self' blob:; "
    "base-uri 'none'; form-action 'self'"
)
_SLUG = re.compile(r"[^a-z0-9]+")
_SENTENCE = re.compile(r"^(.+?(?:。|[.!?](?=\s|$)))")


@dataclass(frozen=True, slots=True)
class Figure:
    """A chart as a page shows it: its SVG (drawn by ``charts``) and what it describes."""

    id: str
    chart: Chart
    svg: str

    @property
    def markup(self) -> Markup:
        """The SVG, labelled by the figure's caption for assistive technology."""
        svg = self.svg.replace("<svg ", f'<svg role="img" aria-labelledby="{self.id}-caption" ', 1)
        return Markup(svg)  # drawn by digest.render.charts: counts and labels, text escaped


def figure(figure_id: str, chart: Chart) -> Figure:
    """``chart`` drawn for a page, its SVG ids prefixed with ``figure_id`` (unique on the page)."""
    return Figure(figure_id, chart, render_svg(chart, prefix=f"{figure_id}-"))


@dataclass(frozen=True, slots=True)
class Nav:
    """Where a page links to, as paths relative to the page (so the site works under any root)."""

    root: str  # "../../../../" from a report page, "" from the site index
    lang: Lang  # the language of the page
    repo_index: str | None = None
    previous: str | None = None
    next: str | None = None
    other_lang: str | None = None
    feed: str | None = None

    @property
    def search(self) -> str:
        return f"{self.root}search/{self.lang}/"

    @property
    def assets(self) -> str:
        return f"{self.root}assets/"


@dataclass(frozen=True, slots=True)
class DayEntry:
    """One day of a repository's index: its pages, or why it is pending."""

    date: str
    pages: tuple[tuple[Lang, str], ...]  # (lang, relative href), empty when pending
    counts: Counts | None = None
    summary: str = ""  # the first sentence of the summary
    pending: str = ""  # the reason the day has no report yet


@dataclass(frozen=True, slots=True)
class PeriodEntry:
    """A month or a year as an index lists it: its pages, days of reports and summed counts."""

    label: str  # "2026 年 3 月", "March 2026", "2026"
    pages: tuple[tuple[Lang, str], ...]  # (lang, relative href)
    days: int
    counts: Counts | None = None


@dataclass(frozen=True, slots=True)
class RepoIndex:
    """A repository's index page: newest day first, with its recent charts."""

    repo: str
    display_name: str
    repo_url: str
    days: tuple[DayEntry, ...]
    figures: tuple[Figure, ...] = ()
    feeds: tuple[tuple[Lang, str], ...] = ()  # (lang, relative href)
    months: tuple[PeriodEntry, ...] = ()  # the archive by month, newest first
    years: tuple[PeriodEntry, ...] = ()  # and by year
    topics: tuple[tuple[str, str], ...] = ()  # (title, relative href) of each topic's page
    recent: int = 0  # how many days ``days`` holds at most (0: every day)


@dataclass(frozen=True, slots=True)
class SiteRepo:
    """One repository (or scope: ``repo`` lists its repositories) on the site index."""

    repo: str
    display_name: str
    href: str
    latest: DayEntry | None


@cache
def fingerprint() -> str:
    """A hash of the templates and renderers: a page rendered by other code is not reused."""
    digest = hashlib.sha256()
    folder = resources.files("digest.render")
    for name in ("html.py", "charts.py"):
        digest.update((folder / name).read_bytes())
    templates = folder / "templates"
    for entry in sorted(templates.iterdir(), key=lambda e: e.name):
        if entry.is_file():
            digest.update(entry.name.encode() + b"\x00" + entry.read_bytes())
    return digest.hexdigest()


@cache
def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("digest.render", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(
        t=t,
        site_t=site_t,
        safe_url=safe_url,
        count_label=count_label,
        counts_text=counts_line,
        count_keys=LIST_KEYS,
        html_lang=lang_tag,
        other=other,
    )
    env.globals["render_spans"] = render_spans
    env.filters["slug"] = anchor
    return env


def page_path(repo: str, day: str, lang: Lang) -> str:
    """Where a report day's page lives in the site: ``vllm-project/vllm/2026-03-10/zh/``."""
    return f"{repo.lower()}/{day}/{lang}/"


def anchor(section_id: str) -> str:
    """The HTML id of a section: ``topic:rocm`` → ``topic-rocm``."""
    return _SLUG.sub("-", section_id.lower()).strip("-") or "section"


def first_sentence(digest: Digest) -> str:
    """The first sentence of the digest's summary (plain text), or ``""``."""
    summary = digest.section("summary")
    if summary is None:
        return ""
    for block in summary.blocks:
        if isinstance(block, Paragraph):
            text = "".join(span_text(span) for span in block.spans).strip()
            match = _SENTENCE.match(text)
            return match[1] if match else text
    return ""


def span_text(span: Inline) -> str:
    """A span as plain text: ``#123 title``, ``@login`` or its text."""
    if isinstance(span, ItemRef):
        return span.label + (f" {span.title}" if span.title else "")
    if isinstance(span, UserRef):
        return f"@{span.login}"
    if isinstance(span, Link):
        return span.text or span.url
    if isinstance(span, Pointer):  # digests point nowhere: only answers carry pointers
        return ""
    return span.text


@dataclass(frozen=True, slots=True)
class _Group:
    """A part of a section as the page lays it out: blocks, or one collapsible list."""

    blocks: tuple[Paragraph | Subheading | BulletList, ...]
    summary: str = ""  # set for a collapsible appendix list: the list's heading


def _groups(section: Section) -> tuple[_Group, ...]:
    """The appendix's lists each become a ``<details>``; other sections stay as they are."""
    if section.id != "appendix":
        return (_Group(section.blocks),)
    groups: list[_Group] = []
    loose: list[Paragraph | Subheading | BulletList] = []
    heading: str | None = None
    for block in section.blocks:
        if isinstance(block, Subheading):
            if loose:
                groups.append(_Group(tuple(loose)))
                loose = []
            heading = block.text
        elif isinstance(block, BulletList) and heading is not None:
            groups.append(_Group((block,), heading))
            heading = None
        else:
            if heading is not None:  # a heading with no list: an empty list
                groups.append(_Group((*loose, block), heading))
                heading, loose = None, []
                continue
            loose.append(block)
    if heading is not None:
        groups.append(_Group((), heading))
    if loose:
        groups.append(_Group(tuple(loose)))
    return tuple(groups)


def render_report(digest: Digest, nav: Nav, figures: Sequence[Figure] = ()) -> str:
    """One day's report page: the whole digest, its contents, charts and provenance."""
    name = digest.shown_name
    tz = digest.window.timezone
    return (
        _env()
        .get_template("report.html")
        .render(
            digest=digest,
            nav=nav,
            lang=digest.lang,
            csp=CSP_STATIC,
            name=name,
            title=digest_title(digest),
            fallbacks=fallbacks_text(digest),
            window=format_window(digest.window),
            counts=counts_line(digest.counts, digest.lang),
            sections=[(s, _groups(s)) for s in digest.sections],
            figures=tuple(figures),
            generated=format_moment(digest.generated_at, tz),
            synced=format_moment(digest.synced_at, tz) if digest.synced_at else None,
        )
    )


def render_repo_index(page: RepoIndex, nav: Nav) -> str:
    """A repository's index: every day newest first, its counts and summary, the charts."""
    return (
        _env()
        .get_template("repo.html")
        .render(page=page, nav=nav, lang=nav.lang, csp=CSP_STATIC, figures=page.figures)
    )


def render_site_index(repos: Sequence[SiteRepo], nav: Nav, scopes: Sequence[SiteRepo] = ()) -> str:
    """The site's front page: the repositories and the scopes, each with its latest report."""
    return (
        _env()
        .get_template("index.html")
        .render(repos=tuple(repos), scopes=tuple(scopes), nav=nav, lang=nav.lang, csp=CSP_STATIC)
    )


def _link(url: str, label: str) -> str:
    target = safe_url(url)
    if target is None:
        return str(escape(label))
    return f'<a href="{escape(target)}" rel="noopener">{escape(label)}</a>'


_STYLES = {"bold": "strong", "italic": "em", "code": "code"}


def render_spans(spans: Sequence[Inline], lang: Lang | str = Lang.EN) -> Markup:
    """Inline spans as HTML in ``lang``, every string escaped and only http(s) links made (the
    report's text is most of a page: written here, not by a template macro per span). A
    comment's original words are collapsed in a ``<details>``."""
    out: list[str] = []
    for span in unlinked(spans):
        if isinstance(span, ItemRef):
            label = span.label + (f" {span.title}" if span.title else "")
            out.append(_link(span.url, label))
        elif isinstance(span, UserRef):
            out.append(_link(span.url, f"@{span.login}"))
        elif isinstance(span, Link):
            out.append(_link(span.url, span.text or span.url))
        elif isinstance(span, Text) and span.style == "original":
            summary = escape(site_t("site.original", Lang(lang)))
            out.append(
                f'<details class="original"><summary>{summary}</summary>'
                f"<q>{escape(span.text)}</q></details>"
            )
        elif isinstance(span, Text):
            tag = _STYLES.get(span.style)
            text = escape(span.text)
            out.append(f"<{tag}>{text}</{tag}>" if tag else str(text))
    return Markup("".join(out))  # every part escaped above


def render_blocks(blocks: Sequence[Block], lang: Lang = Lang.EN) -> str:
    """``blocks`` as an HTML fragment, as a report page in ``lang`` shows them (a feed
    entry's content)."""
    module = _env().get_template("macros.html").make_module({"lang": lang})
    block = module.block  # type: ignore[attr-defined]
    return "\n".join(str(block(b)).strip() for b in blocks)


def render_search(nav: Nav, bundles: Sequence[str] = ()) -> str:
    """The search page of one language (Pagefind indexes each language separately), merging
    the index's parts in ``bundles`` (folders from the site's root) into the main one's."""
    return (
        _env()
        .get_template("search.html")
        .render(nav=nav, lang=nav.lang, csp=CSP_SEARCH, bundles=list(bundles))
    )
