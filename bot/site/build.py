"""The report website: every report day of every repository, in each language, from the mirror.

The builder syncs each repository once over the whole span (within the request budget), builds
each day's digest through the digest service, renders the pages with ``digest.render.html``
and writes the site into a temporary directory that replaces the previous one when complete.
A day that cannot be built is listed as pending, never invented.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from importlib import resources
from pathlib import Path

from bot.commands import messages
from bot.commands.runner import ReportCore
from bot.site.archive import (
    RECENT_DAYS,
    ArchiveDay,
    ArchiveWriter,
    SiteTopic,
    archive_day,
    topics_record,
)
from bot.site.feed import FeedEntry, render_feed
from bot.site.output import DayRecord, Output
from bot.site.search import index_site
from config.settings import AppConfig
from digest.analysis.types import WindowData
from digest.builder import load_window
from digest.errors import DigestError
from digest.i18n import topic_title
from digest.i18n.site import site_t
from digest.mirror.store import Store, Sync
from digest.models import Counts, Digest, Lang, Window
from digest.render import charts
from digest.render.charts import COUNT_KEYS
from digest.render.html import (
    DayEntry,
    Figure,
    Nav,
    RepoIndex,
    SiteRepo,
    anchor,
    fingerprint,
    first_sentence,
    render_repo_index,
    render_report,
    render_search,
    render_site_index,
)
from digest.render.html import figure as make_figure
from digest.render.json import iso
from digest.windows import cutoff, format_moment, parse_day_start, zone

log = logging.getLogger(__name__)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ASSETS = ("style.css", "search.js")


@dataclass(frozen=True, slots=True)
class SiteOptions:
    """What to build and where."""

    out: Path
    repos: tuple[str, ...]
    days: int = 30
    since: date | None = None
    langs: tuple[Lang, ...] = tuple(Lang)
    site_url: str | None = None  # the public URL of the site's root (feeds link absolutely)
    search: bool = True


@dataclass(frozen=True, slots=True)
class SiteReport:
    """What a build did."""

    out: Path
    pages: int  # HTML pages in the site
    rendered: int  # report pages rendered by this build
    reused: int  # report pages copied unchanged from the previous build
    pending: int  # days listed as pending
    searchable: bool
    seconds: float
    digest_seconds: float = 0.0  # of which: syncing and building digests
    search_seconds: float = 0.0  # of which: indexing for search


def report_days(
    now: datetime, timezone: str, day_start: str, days: int, since: date | None
) -> tuple[list[date], date]:
    """The report dates whose window has ended, oldest first, and the date still in progress."""
    tz, start = zone(timezone), parse_day_start(day_start)
    current = now.astimezone(tz).date()
    while cutoff(current, tz, start) > now:
        current -= timedelta(days=1)
    while cutoff(current + timedelta(days=1), tz, start) <= now:
        current += timedelta(days=1)
    last = current - timedelta(days=1)
    first = since if since is not None else last - timedelta(days=max(1, days) - 1)
    count = (last - first).days + 1
    return [first + timedelta(days=n) for n in range(max(0, count))], current


@dataclass
class _Day:
    """One date of a repository as the build found it."""

    date: date
    window: Window
    digests: dict[Lang, Digest] = field(default_factory=dict)
    failure: str = ""
    kept: tuple[Lang, ...] = ()  # languages whose page the previous build made, carried over
    record: DayRecord | None = None  # what the previous build knew of a carried-over day
    data: WindowData | None = None  # the window's items and comments, read for its chart


class SiteBuilder:
    """Builds the site from the mirror through the digest service."""

    def __init__(
        self,
        *,
        config: AppConfig,
        core: ReportCore,
        store: Store,
        sync: Sync,
        clock: Callable[[], datetime],
        web_url: str = "https://github.com",
    ) -> None:
        self._config = config
        self._core = core
        self._store = store
        self._sync = sync
        self._clock = clock
        self._web_url = web_url.rstrip("/")
        self._digest_seconds = 0.0

    async def build(self, options: SiteOptions) -> SiteReport:
        """Build the whole site into ``options.out``; the previous site stays until it is done."""
        started = time.perf_counter()
        self._digest_seconds = 0.0
        output = Output(options.out)
        try:
            report = await self._build(options, output)
            output.commit()
        except BaseException:
            output.abort()
            raise
        seconds = time.perf_counter() - started
        done = dataclasses.replace(report, seconds=seconds, digest_seconds=self._digest_seconds)
        log.info(
            "site.built",
            extra={
                "out": str(options.out),
                "pages": done.pages,
                "rendered": done.rendered,
                "reused": done.reused,
                "pending": done.pending,
                "seconds": round(seconds, 3),
            },
        )
        return done

    async def _build(self, options: SiteOptions, output: Output) -> SiteReport:
        primary = options.langs[0]
        repos: list[SiteRepo] = []
        pages = pending = 0
        for repo in options.repos:
            entries, built, waiting = await self._repo(repo, options, output)
            pages += built
            pending += waiting
            base = f"{repo.lower()}/"
            latest = next((e for e in entries if e.pages), None)
            if latest is not None:  # its links are relative to the repository's index
                pages_here = tuple((lang, base + href) for lang, href in latest.pages)
                latest = dataclasses.replace(latest, pages=pages_here)
            repos.append(SiteRepo(repo, self._config.display_name(repo), base, latest))
        output.write("index.html", render_site_index(repos, Nav(root="", lang=primary)))
        for lang in options.langs:
            output.write(f"search/{lang}/index.html", render_search(Nav(root="../../", lang=lang)))
        pages += 1 + len(options.langs)
        folder = resources.files("digest.render") / "templates" / "assets"
        for name in ASSETS:
            output.write(f"assets/{name}", (folder / name).read_bytes())
        indexing = time.perf_counter()
        searchable = options.search and await index_site(output.tmp)
        return SiteReport(
            options.out,
            pages,
            output.rendered,
            output.reused,
            pending,
            searchable,
            0.0,
            search_seconds=time.perf_counter() - indexing if options.search else 0.0,
        )

    async def _days(self, repo: str, options: SiteOptions) -> tuple[list[_Day], _Day]:
        """Every report day of ``repo`` with its digests, or why it has none."""
        started = time.perf_counter()
        try:
            return await self._digests(repo, options)
        finally:
            self._digest_seconds += time.perf_counter() - started

    async def _digests(self, repo: str, options: SiteOptions) -> tuple[list[_Day], _Day]:
        conf = self._config.repo(repo)
        now = self._clock()
        dates, current = report_days(
            now, conf.timezone, conf.day_start, options.days, options.since
        )
        days = [_Day(d, report_window(d, conf.timezone, conf.day_start)) for d in dates]
        waiting = _Day(current, report_window(current, conf.timezone, conf.day_start))
        sync_failure = ""
        if days:
            span = Window(days[0].window.start, days[-1].window.end, conf.timezone)
            try:
                await self._sync.ensure(repo, span)
            except DigestError as exc:
                sync_failure = messages.error_text(exc, now)
        for day in days:
            if sync_failure:
                day.failure = sync_failure
                continue
            for lang in options.langs:
                try:
                    request = self._core.request(day.date.isoformat(), repo=repo, lang=lang)
                    day.digests[lang] = await self._core.build(request)
                except DigestError as exc:
                    day.failure = messages.error_text(exc, now)
                    day.digests.clear()
                    break
        return days, waiting

    def _archive(
        self, repo: str, days: list[_Day], waiting: _Day, langs: Sequence[Lang], output: Output
    ) -> list[_Day]:
        """The span's days plus the days earlier builds published: the archive keeps them all.

        A day not built now (out of the span, or failing) keeps the pages it had.
        """
        conf = self._config.repo(repo)
        base = repo.lower()
        known = {day.date for day in days}
        for key in output.previous_days:
            head, _, stamp = key.rpartition("/")
            try:
                when = date.fromisoformat(stamp)
            except ValueError:
                continue
            if head == base and when not in known and when < waiting.date:
                days.append(_Day(when, report_window(when, conf.timezone, conf.day_start)))
                known.add(when)
        for day in days:
            if not day.digests:
                day.kept = tuple(
                    lang
                    for lang in langs
                    if output.has_previous(f"{base}/{day.date}/{lang}/index.html")
                )
                day.record = output.previous_days.get(f"{base}/{day.date}")
        return sorted((d for d in days if d.digests or d.kept or d.failure), key=lambda d: d.date)

    async def _repo(
        self, repo: str, options: SiteOptions, output: Output
    ) -> tuple[list[DayEntry], int, int]:
        """Write a repository's report pages, index and feeds; its entries newest first."""
        span, waiting = await self._days(repo, options)
        days = self._archive(repo, span, waiting, options.langs, output)
        base = repo.lower()
        name = self._config.display_name(repo)
        repo_url = f"{self._web_url}/{repo}"
        primary = options.langs[0]
        pages = 0
        for lang in options.langs:
            dated = [d for d in days if d.digests or lang in d.kept]
            for index, day in enumerate(dated):
                path = f"{base}/{day.date}/{lang}/index.html"
                pages += 1
                if not day.digests:
                    output.keep_previous(path)
                    continue
                previous = dated[index - 1].date if index > 0 else None
                following = dated[index + 1].date if index + 1 < len(dated) else None
                nav = Nav(
                    root="../../../../",
                    lang=lang,
                    repo_index="../../",
                    previous=f"../../{previous}/{lang}/" if previous else None,
                    next=f"../../{following}/{lang}/" if following else None,
                    other_lang=_other(day, lang, options.langs),
                    feed=f"../../feed.{lang}.xml",
                )
                await self._report_page(day, lang, nav, path, repo_url, output)
            feed_entries = [
                FeedEntry(d.digests[lang], self._page_url(options, base, d.date, lang))
                for d in days
                if lang in d.digests
            ]
            feed_url = self._feed_url(options, base, lang)
            home = f"{options.site_url.rstrip('/')}/{base}/" if options.site_url else "./"
            output.write(
                f"{base}/feed.{lang}.xml",
                render_feed(repo, name, lang, feed_url, home, feed_entries),
            )
        entries = self._entries(days, waiting, options.langs, primary)
        topics = tuple(
            SiteTopic(topic.name, {lang: topic_title(topic, lang) for lang in Lang})
            for topic in self._config.topics_for(repo)
        )
        archived: list[ArchiveDay] = []
        for day in days:
            record: DayRecord | None = None
            if day.digests:
                digest = day.digests.get(primary) or next(iter(day.digests.values()))
                record = {
                    "counts": digest.counts.as_dict(),
                    "summary": first_sentence(digest),
                    "summaries": {
                        str(lang): first_sentence(d) for lang, d in sorted(day.digests.items())
                    },
                    "topics": topics_record(digest, topics),
                }
                langs: tuple[Lang, ...] = tuple(options.langs)
            elif day.kept:
                record, langs = day.record, day.kept
            else:
                continue
            if record is not None:
                output.record_day(f"{base}/{day.date}", record)
            archived.append(archive_day(day.date, langs, record, iso(day.window.end) or ""))
        writer = ArchiveWriter(
            output,
            repo=repo,
            name=name,
            repo_url=repo_url,
            langs=options.langs,
            site_url=options.site_url,
        )
        archive = writer.write(archived, topics)
        page = RepoIndex(
            repo,
            name,
            repo_url,
            tuple(entries[: RECENT_DAYS + 1]),  # the day in progress and the last 30
            self._index_figures(repo, span, primary),
            tuple((lang, f"feed.{lang}.xml") for lang in options.langs),
            months=archive.months,
            years=archive.years,
            topics=archive.topics,
            recent=RECENT_DAYS,
        )
        output.write(
            f"{base}/index.html", render_repo_index(page, Nav(root="../../", lang=primary))
        )
        pending = sum(1 for e in entries if e.pending)
        return entries, pages + 1 + archive.pages, pending

    async def _report_page(
        self, day: _Day, lang: Lang, nav: Nav, path: str, repo_url: str, output: Output
    ) -> None:
        """Render one report page, or copy it from the previous site when nothing changed.

        The hash leaves out when the digest was generated and synced (and whether its language
        came as a string or the enum): a finished day's page
        is re-rendered only when what it says (or how pages are rendered) changes.
        """
        digest = day.digests[lang]
        stable = dataclasses.replace(  # a cached digest's language is the enum, a fresh one's
            digest, lang=Lang(digest.lang), generated_at=_EPOCH, synced_at=None
        )
        content = "\x00".join((fingerprint(), repr(stable), repr(nav)))
        digest_hash = hashlib.sha256(content.encode("utf-8")).hexdigest()
        if output.unchanged(path, digest_hash):
            return
        if day.data is None:  # read once for both languages
            day.data = await load_window(self._store, digest.repo, digest.window, repo_url)
        chart = charts.activity_chart(digest.window, day.data.items, day.data.comments, lang)
        figure = make_figure("chart-activity", chart)
        output.write(path, render_report(digest, nav, (figure,)), digest_hash)

    def _entries(
        self, days: Sequence[_Day], waiting: _Day, langs: Sequence[Lang], primary: Lang
    ) -> list[DayEntry]:
        """The index's days, newest first: the day in progress, then each report day."""
        end = format_moment(waiting.window.end, waiting.window.timezone)
        out = [
            DayEntry(str(waiting.date), (), pending=site_t("site.pending_open", primary, end=end))
        ]
        for day in reversed(days):
            if day.digests:
                digest = day.digests.get(primary) or next(iter(day.digests.values()))
                links = tuple((lang, f"{day.date}/{lang}/") for lang in langs)
                out.append(DayEntry(str(day.date), links, digest.counts, first_sentence(digest)))
            elif day.kept:
                links = tuple((lang, f"{day.date}/{lang}/") for lang in day.kept)
                counts, summary = _from_record(day.record)
                out.append(DayEntry(str(day.date), links, counts, summary))
            else:
                out.append(DayEntry(str(day.date), (), pending=day.failure))
        return out

    def _index_figures(self, repo: str, days: Sequence[_Day], lang: Lang) -> tuple[Figure, ...]:
        """The 30-day chart and one chart per focus topic, from the days' digests."""
        recent = days[-30:]

        def digest_of(day: _Day) -> Digest | None:
            return day.digests.get(lang) or next(iter(day.digests.values()), None)

        counts: list[tuple[date, Counts | None]] = []
        for day in recent:
            found = digest_of(day)
            counts.append((day.date, found.counts if found else None))
        chart = charts.days_chart(counts, lang)
        figures = [make_figure("chart-days", chart)]
        for topic in self._config.topics_for(repo):
            per_day: list[tuple[date, int | None]] = []
            for day in recent:
                found = digest_of(day)
                section = found.section(f"topic:{topic.name}") if found else None
                per_day.append((day.date, len(section.cites) if section else None))
            topic_chart = charts.topic_chart(
                topic_title(topic, charts.label_lang(lang)), per_day, lang
            )
            figures.append(make_figure(f"chart-topic-{anchor(topic.name)}", topic_chart))
        return tuple(figures)

    @staticmethod
    def _page_url(options: SiteOptions, base: str, day: date, lang: Lang) -> str:
        path = f"{day}/{lang}/"
        return f"{options.site_url.rstrip('/')}/{base}/{path}" if options.site_url else path

    @staticmethod
    def _feed_url(options: SiteOptions, base: str, lang: Lang) -> str:
        name = f"feed.{lang}.xml"
        return f"{options.site_url.rstrip('/')}/{base}/{name}" if options.site_url else name


def report_window(day: date, timezone: str, day_start: str) -> Window:
    """The report window of ``day``: from its cut-off to the next day's."""
    tz, start = zone(timezone), parse_day_start(day_start)
    end = cutoff(day + timedelta(days=1), tz, start)
    return Window(cutoff(day, tz, start), end, timezone, day.isoformat())


def _from_record(record: DayRecord | None) -> tuple[Counts | None, str]:
    """The counts and summary sentence an earlier build recorded for a day, when it did."""
    if record is None:
        return None, ""
    try:
        counts = Counts(**{key: int(record["counts"][key]) for key in COUNT_KEYS})
    except (KeyError, TypeError, ValueError):
        counts = None
    summary = record.get("summary")
    return counts, summary if isinstance(summary, str) else ""


def _other(day: _Day, lang: Lang, langs: Sequence[Lang]) -> str | None:
    others = [o for o in langs if o != lang and o in day.digests]
    return f"../{others[0]}/" if others else None
