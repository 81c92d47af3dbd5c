"""The report website: every report day of every repository and configured scope, in each
language, from the mirror.

The builder syncs each repository once over the whole span (within the request budget), builds
each day's digest through the digest service, renders the pages with ``digest.render.html``
and writes the site into a temporary directory that replaces the previous one when complete.
A scope (several repositories in one report) has the same pages as a repository, under
``scopes/{name}/``; its days are asked of the digest service with the scope. A day that cannot
be built is listed as pending, never invented.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import TypeVar

from bot.commands.runner import ReportCore, config_fingerprint
from bot.site.archive import (
    FEED_DAYS,
    RECENT_DAYS,
    ArchiveDay,
    ArchiveWriter,
    SiteTopic,
    archive_day,
    topics_record,
)
from bot.site.failures import failure_text
from bot.site.feed import DayFeedEntry, FeedEntry, feed_record, render_feed
from bot.site.freshness import (
    LOOKBACK,
    Calendar,
    cited_record,
    day_fingerprint,
    mirror_mark,
    shown,
    touched_days,
)
from bot.site.output import DayRecord, Output
from bot.site.routes import Route, Routes, href, root_of, scope_base
from bot.site.search import bundles, index_site, plan
from config.settings import AppConfig
from digest.analysis.scoped import filtered, merged
from digest.analysis.types import WindowData
from digest.builder import load_window
from digest.errors import DigestError
from digest.i18n import topic_title
from digest.i18n.site import site_t
from digest.mirror.renames import RENAMED
from digest.mirror.store import Store, Sync, SyncState
from digest.models import Counts, Digest, ItemRef, Lang, Topic, Window, iter_spans
from digest.render import charts
from digest.render.charts import COUNT_KEYS
from digest.render.html import (
    DayEntry,
    Figure,
    Nav,
    RepoIndex,
    SiteRepo,
    fingerprint,
    first_sentence,
    render_repo_index,
    render_report,
    render_search,
    render_site_index,
)
from digest.render.html import figure as make_figure
from digest.render.json import iso
from digest.scope import NO_FILTERS, Filters
from digest.windows import cutoff, format_moment, parse_day_start, parse_window, report_days, zone

log = logging.getLogger(__name__)
_T = TypeVar("_T")

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ASSETS = ("style.css", "search.js")
ROUTES = Routes()  # relative links between pages; feeds link absolutely when the URL is known


@dataclass(frozen=True, slots=True)
class SiteOptions:
    """What to build and where."""

    out: Path
    repos: tuple[str, ...]
    scopes: tuple[str, ...] = ()  # configured scopes' names, built under scopes/{name}/
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
    digests: int = 0  # digests asked of the digest service (a reused day asks for none)
    search_parts: int = 0  # the search index's parts
    search_indexed: int = 0  # of which: indexed by this build (the rest carried over)


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
    fingerprint: str = ""  # what its pages are a function of, besides the data
    fresh: bool = False  # unchanged since the previous build: its pages and record reused
    repo: str = ""  # the repository its digests are asked for
    scope: str | None = None  # or the configured scope


@dataclass(frozen=True, slots=True)
class _Subject:
    """What a set of pages is of: a repository, or a configured scope of several."""

    base: str  # where its pages live: "vllm-project/vllm", "scopes/serving"
    name: str  # what the pages call it
    label: str  # its repositories as the pages list them
    url: str  # the repository's page ("" for a scope)
    timezone: str
    day_start: str
    topics: tuple[Topic, ...]
    repos: tuple[str, ...]  # synced for it (a repository by its configured name, until the
    # sync finds what the mirror calls it now)
    asked: str  # the repository its digests are asked for (a scope's first)
    config: str  # the configuration its days' pages follow (a scope's own entry too)
    scope: str | None = None  # the configured scope's name; None for a repository
    filters: Filters = NO_FILTERS  # a scope's: what its charts leave out, as its digests do

    def mark(self, repo: str) -> str:
        """The manifest's key for the mirror of ``repo`` this build read for these pages:
        ``owner/name`` for a repository's, ``scopes/{name}/owner/name`` for a scope's."""
        base = self.base.lower()
        return base if self.scope is None else f"{base}/{repo.lower()}"


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
        self._digests_asked = 0
        self._config_fingerprint = config_fingerprint(config)

    async def build(self, options: SiteOptions) -> SiteReport:
        """Build the whole site into ``options.out``; the previous site stays until it is done."""
        started = time.perf_counter()
        self._digest_seconds = 0.0
        self._digests_asked = 0
        output = Output(options.out)
        try:
            report = await self._build(options, output)
            output.commit()
        except BaseException:
            output.abort()
            raise
        seconds = time.perf_counter() - started
        done = dataclasses.replace(
            report,
            seconds=seconds,
            digest_seconds=self._digest_seconds,
            digests=self._digests_asked,
        )
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
        for configured in options.repos:
            subject, entries, built, waiting = await self._repo(configured, options, output)
            pages += built
            pending += waiting
            latest = next((e for e in entries if e.pages), None)
            repos.append(_listed(subject.base, subject.label, subject.name, latest))
        scopes: list[SiteRepo] = []
        for scope_name in options.scopes:
            subject, entries, built, waiting = await self._scope(scope_name, options, output)
            pages += built
            pending += waiting
            latest = next((e for e in entries if e.pages), None)
            scopes.append(_listed(subject.base, subject.label, subject.name, latest))
        root = ROUTES.root()
        nav = Nav(root=root_of(root), lang=primary)
        output.write(root.file, render_site_index(repos, nav, scopes))
        parts = plan(output.pages)  # the search pages and assets index nothing: no part
        for lang in options.langs:
            search = ROUTES.search(lang)
            page = render_search(Nav(root=root_of(search), lang=lang), bundles(parts))
            output.write(search.file, page)
        pages += 1 + len(options.langs)
        folder = resources.files("digest.render") / "templates" / "assets"
        for name in ASSETS:
            output.write(ROUTES.asset(name).file, (folder / name).read_bytes())
        indexing = time.perf_counter()
        searchable = options.search and await index_site(output, parts)
        return SiteReport(
            options.out,
            pages,
            output.rendered,
            output.reused,
            pending,
            searchable,
            0.0,
            search_seconds=time.perf_counter() - indexing if options.search else 0.0,
            search_parts=len(parts) if options.search else 0,
            search_indexed=len(output.indexed),
        )

    async def _timed(self, work: Awaitable[_T]) -> _T:
        """``work``, its time counted as syncing and building digests."""
        started = time.perf_counter()
        try:
            return await work
        finally:
            self._digest_seconds += time.perf_counter() - started

    async def _days(
        self, subject: _Subject, options: SiteOptions, output: Output
    ) -> tuple[_Subject, list[_Day], _Day]:
        """Every report day of a subject with its digests, or why it has none, or reused; and
        the subject as the sync found it (a renamed repository's pages move to its new name)."""
        return await self._timed(self._digests(subject, options, output))

    async def _digests(
        self, subject: _Subject, options: SiteOptions, output: Output
    ) -> tuple[_Subject, list[_Day], _Day]:
        """Each of the subject's repositories synced, the days new data in any of them touched
        built again. The build records each repository's mirror for the subject apart
        (``_Subject.mark``)."""
        dates, current = report_days(
            self._clock(), subject.timezone, subject.day_start, options.days, options.since
        )
        days = [_Day(d, report_window(d, subject.timezone, subject.day_start)) for d in dates]
        waiting = _Day(current, report_window(current, subject.timezone, subject.day_start))
        if not days:
            return subject, days, waiting
        end, mirrored = days[-1].window.end, subject.base
        for repo in subject.repos:
            span = Window(
                _sync_start(output.previous_repos.get(subject.mark(repo)), days),
                end,
                subject.timezone,
            )
            try:
                synced = await self._sync.ensure(repo, span)
            except DigestError as exc:
                for day in days:
                    day.failure = failure_text(exc, options.langs[0])
                return subject, days, waiting
            mirrored = synced.repo or mirrored
        if subject.scope is None:  # a repository's pages go where the mirror found it
            subject = self._moved(subject, mirrored, days, current, output)
        base = subject.base.lower()
        calendar = Calendar(subject.timezone, subject.day_start)
        previous = {d.date: output.previous_days.get(f"{base}/{d.date}") or {} for d in days}
        touched: set[date] | None = set()
        states: list[SyncState] = []
        for repo in subject.repos:
            state = await self._store.get_sync_state(repo)
            states.append(state)
            mark = subject.mark(repo)
            cited = repo if subject.scope is not None else None
            changed = await touched_days(
                self._store,
                repo,
                output.previous_repos.get(mark),
                state,
                calendar,
                {when: _cited(record, cited) for when, record in previous.items()},
            )
            touched = None if touched is None or changed is None else touched | changed
            output.repos[mark] = mirror_mark(state)
        for day in days:
            day.repo, day.scope = subject.asked, subject.scope
        synced_at = [s.synced_at for s in states]
        closed = None if None in synced_at else min(s for s in synced_at if s is not None)
        await self._reuse_or_fetch(
            base, subject.config, days, previous, touched, closed, options, output
        )
        return subject, days, waiting

    def _moved(
        self, subject: _Subject, mirrored: str, days: list[_Day], current: date, output: Output
    ) -> _Subject:
        """A repository where the sync found it: renamed, its pages move to the new name and
        the days published under the old one are built again there (the mirror moved with
        the repository)."""
        configured = subject.asked
        if mirrored.lower() != configured.lower():
            dates = {d.date for d in days}
            earlier = set(_published(output, configured, before=current)) - dates
            zone_name, start = subject.timezone, subject.day_start
            days += [_Day(d, report_window(d, zone_name, start)) for d in earlier]
            days.sort(key=lambda d: d.date)
        return self._repo_subject(configured, mirrored)

    async def _reuse_or_fetch(
        self,
        base: str,
        config: str,
        days: Sequence[_Day],
        previous: dict[date, DayRecord],
        touched: set[date] | None,
        synced_at: datetime | None,
        options: SiteOptions,
        output: Output,
    ) -> None:
        """Reuse each day of the pages under ``base`` that nothing touched since the previous
        build (its window closed by ``synced_at``, the configuration ``config`` the same), else
        ask the digest service for it."""
        for day in days:
            closed = synced_at is not None and day.window.end <= synced_at
            day.fingerprint = day_fingerprint(
                day.window, config=config, langs=options.langs, closed=closed
            )
            record = previous[day.date]
            if (
                closed
                and touched is not None
                and day.date not in touched
                and record.get("fingerprint") == day.fingerprint
                and all(
                    output.has_previous(ROUTES.day(base, day.date, lang).file)
                    for lang in options.langs
                )
            ):
                day.fresh, day.record, day.kept = True, record, tuple(options.langs)
                continue
            await self._fetch(day, options.langs)

    async def _fetch(self, day: _Day, langs: Sequence[Lang]) -> None:
        """The day's digest in each language from the digest service, or why there is none."""
        for lang in langs:
            try:
                request = self._core.request(
                    day.date.isoformat(), repo=day.repo, scope=day.scope, lang=lang
                )
                self._digests_asked += 1
                day.digests[lang] = await self._core.build(request)
            except DigestError as exc:
                day.failure = failure_text(exc, langs[0])
                day.digests.clear()
                return
        day.fresh = False

    def _archive(
        self,
        subject: _Subject,
        days: list[_Day],
        waiting: _Day,
        langs: Sequence[Lang],
        output: Output,
    ) -> list[_Day]:
        """The span's days plus the days earlier builds published: the archive keeps them all.

        A day not built now (out of the span, or failing) keeps the pages it had.
        """
        repo = subject.base
        base = repo.lower()
        known = {day.date for day in days}
        for when in _published(output, repo, before=waiting.date):
            if when not in known:
                days.append(_Day(when, report_window(when, subject.timezone, subject.day_start)))
                known.add(when)
        for day in days:
            if not day.digests and not day.fresh:
                day.kept = tuple(
                    lang
                    for lang in langs
                    if output.has_previous(ROUTES.day(repo, day.date, lang).file)
                )
                day.record = output.previous_days.get(f"{base}/{day.date}")
        return sorted((d for d in days if d.digests or d.kept or d.failure), key=lambda d: d.date)

    def _repo_subject(self, configured: str, repo: str) -> _Subject:
        """The repository configured as ``configured``, its pages under ``repo`` (its name as
        the mirror knows it)."""
        conf = self._config.repo(configured)
        return _Subject(
            base=repo,
            name=self._display_name(configured, repo),
            label=repo,
            url=f"{self._web_url}/{repo}",
            timezone=conf.timezone,
            day_start=conf.day_start,
            topics=self._config.topics_for(configured),
            repos=(repo,),
            asked=configured,
            config=self._config_fingerprint,
        )

    async def _repo(
        self, configured: str, options: SiteOptions, output: Output
    ) -> tuple[_Subject, list[DayEntry], int, int]:
        """Write a repository's report pages, index and feeds, under the name it has now;
        what it is and its entries newest first."""
        state = await self._timed(self._store.get_sync_state(configured))
        known = state.etags.get(RENAMED) or configured
        subject = self._repo_subject(configured, known)
        synced = dataclasses.replace(subject, repos=(configured,))  # by its configured name
        return await self._subject(synced, options, output)

    async def _scope(
        self, name: str, options: SiteOptions, output: Output
    ) -> tuple[_Subject, list[DayEntry], int, int]:
        """Write a configured scope's report pages, index and feeds under ``scopes/{name}/``;
        what it is and its entries newest first."""
        scope = self._config.scope(name)
        first = self._config.repo(scope.repos[0])
        subject = _Subject(
            base=scope_base(scope.name),
            name=self._config.scope_name(scope),
            label=", ".join(scope.repos),
            url="",
            timezone=scope.timezone or first.timezone,
            day_start=scope.day_start or first.day_start,
            topics=self._config.scope_topics(scope),
            repos=scope.repos,
            asked=scope.repos[0],
            config=self._scope_fingerprint(scope.name),
            scope=scope.name,
            filters=scope.filters,
        )
        return await self._subject(subject, options, output)

    async def _subject(
        self, subject: _Subject, options: SiteOptions, output: Output
    ) -> tuple[_Subject, list[DayEntry], int, int]:
        """Write a subject's pages, under where the sync found it; what it is then and its
        entries newest first."""
        subject, span, waiting = await self._days(subject, options, output)
        entries, pages, pending = await self._write(subject, span, waiting, options, output)
        return subject, entries, pages, pending

    async def _write(
        self,
        subject: _Subject,
        span: list[_Day],
        waiting: _Day,
        options: SiteOptions,
        output: Output,
    ) -> tuple[list[DayEntry], int, int]:
        """Write a subject's report pages, archive, index and feeds; its entries newest first,
        the pages written and the days pending."""
        days = self._archive(subject, span, waiting, options.langs, output)
        repo = subject.base
        base = repo.lower()
        name = subject.name
        primary = options.langs[0]
        topics = tuple(
            SiteTopic(topic.name, {lang: topic_title(topic, lang) for lang in Lang})
            for topic in subject.topics
        )
        pages = 0
        for lang in options.langs:
            dated = [d for d in days if d.digests or lang in d.kept]
            for index, day in enumerate(dated):
                here = ROUTES.day(repo, day.date, lang)
                pages += 1
                if not day.digests and not day.fresh:
                    output.keep_previous(here.file)
                    continue
                previous = dated[index - 1].date if index > 0 else None
                following = dated[index + 1].date if index + 1 < len(dated) else None
                other = _other(day, lang, options.langs)
                nav = Nav(
                    root=root_of(here),
                    lang=lang,
                    repo_index=href(here, ROUTES.repo(repo)),
                    previous=_day_link(here, repo, previous, lang),
                    next=_day_link(here, repo, following, lang),
                    other_lang=_day_link(here, repo, day.date, other),
                    feed=href(here, ROUTES.feed(repo, lang)),
                )
                await self._report_page(day, lang, nav, here.file, subject, output, options)
        archived: list[ArchiveDay] = []
        for day in days:
            record: DayRecord | None
            if day.digests:
                record = self._record(day, topics, options.langs)
                langs: tuple[Lang, ...] = tuple(options.langs)
            elif day.kept:
                record, langs = day.record, day.kept
            else:
                continue
            if record is not None:
                output.record_day(f"{base}/{day.date}", record)
            archived.append(archive_day(day.date, langs, record, iso(day.window.end) or ""))
        for lang in options.langs:
            self._write_feed(repo, name, lang, days, options, output)
        writer = ArchiveWriter(
            output,
            repo=repo,
            name=name,
            repo_url=subject.url,
            langs=options.langs,
            routes=Routes(options.site_url),
            label=subject.label,
        )
        archive = writer.write(archived, topics)
        entries = self._entries(repo, days, waiting, options.langs, primary)
        index_page = ROUTES.repo(repo)
        page = RepoIndex(
            subject.label,
            name,
            subject.url,
            tuple(entries[: RECENT_DAYS + 1]),  # the day in progress and the last 30
            self._index_figures(archived, topics, primary),
            tuple((lang, href(index_page, ROUTES.feed(repo, lang))) for lang in options.langs),
            months=archive.months,
            years=archive.years,
            topics=archive.topics,
            recent=RECENT_DAYS,
        )
        nav = Nav(root=root_of(index_page), lang=primary)
        output.write(index_page.file, render_repo_index(page, nav))
        pending = sum(1 for e in entries if e.pending)
        return entries, pages + 1 + archive.pages, pending

    def _scope_fingerprint(self, name: str) -> str:
        """The configuration a scope's days follow: the repositories' and its own entry."""
        entry = self._config.scopes[name].model_dump_json()
        text = f"{self._config_fingerprint}\x00{entry}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def _display_name(self, configured: str, repo: str) -> str:
        """The name the site shows: the configured one, else the repository's current name."""
        return self._config.repo(configured).display_name or repo.split("/", 1)[1]

    def _record(self, day: _Day, topics: Sequence[SiteTopic], langs: Sequence[Lang]) -> DayRecord:
        """What the manifest keeps of a day built now: enough for every index, feed and the
        next build to go on without its digests."""
        primary = day.digests.get(langs[0]) or next(iter(day.digests.values()))
        return {
            "counts": primary.counts.as_dict(),
            "summary": first_sentence(primary),
            "summaries": {str(lang): first_sentence(d) for lang, d in sorted(day.digests.items())},
            "topics": topics_record(primary, topics),
            "cited": cited_record(cited_items(primary)),
            "fingerprint": day.fingerprint,
            "content": {str(lang): content_hash(d) for lang, d in sorted(day.digests.items())},
            "feed": {str(lang): feed_record(d) for lang, d in sorted(day.digests.items())},
        }

    def _write_feed(
        self,
        repo: str,
        name: str,
        lang: Lang,
        days: Sequence[_Day],
        options: SiteOptions,
        output: Output,
    ) -> None:
        """The repository's feed in ``lang``: its newest ``FEED_DAYS`` days, from their records."""
        base = repo.lower()
        routes = Routes(options.site_url)
        here = routes.feed(repo, lang)
        entries: list[DayFeedEntry] = []
        for day in reversed(days):
            record = output.days.get(f"{base}/{day.date}") or {}
            stored = (record.get("feed") or {}).get(str(lang))
            if not stored:
                continue
            entries.append(
                FeedEntry.of(stored, routes.link(here, routes.day(repo, day.date, lang)))
            )
            if len(entries) == FEED_DAYS:
                break
        feed_url, home = routes.link(here, here), routes.link(here, routes.repo(repo))
        output.write(here.file, render_feed(repo, name, lang, feed_url, home, entries))

    async def _report_page(
        self,
        day: _Day,
        lang: Lang,
        nav: Nav,
        path: str,
        subject: _Subject,
        output: Output,
        options: SiteOptions,
    ) -> None:
        """Render one report page, or copy it from the previous site when nothing changed.

        The hash is of what the page says (its digest, less when it was generated and synced),
        how pages are rendered and its links: a reused day whose links changed (a new
        neighbour) asks for its digest again and is re-rendered.
        """
        if day.fresh and day.record is not None:
            content = (day.record.get("content") or {}).get(str(lang), "")
            if content and output.unchanged(path, page_hash(content, nav)):
                return
            await self._fetch(day, options.langs)
            if not day.digests:
                output.keep_previous(path)
                return
        digest = day.digests[lang]
        digest_hash = page_hash(content_hash(digest), nav)
        if output.unchanged(path, digest_hash):
            return
        if day.data is None:  # read once for both languages
            day.data = await digest_window(self._store, digest, subject.filters)
        chart = charts.activity_chart(digest.window, day.data.items, day.data.comments, lang)
        figure = make_figure("chart-activity", chart)
        output.write(path, render_report(digest, nav, (figure,)), digest_hash)

    def _entries(
        self,
        repo: str,
        days: Sequence[_Day],
        waiting: _Day,
        langs: Sequence[Lang],
        primary: Lang,
    ) -> list[DayEntry]:
        """The index's days, newest first: the day in progress, then each report day."""
        end = format_moment(waiting.window.end, waiting.window.timezone)
        out = [
            DayEntry(str(waiting.date), (), pending=site_t("site.pending_open", primary, end=end))
        ]
        for day in reversed(days):
            if day.digests:
                digest = day.digests.get(primary) or next(iter(day.digests.values()))
                links = _links(repo, day.date, langs)
                out.append(DayEntry(str(day.date), links, digest.counts, first_sentence(digest)))
            elif day.kept:
                links = _links(repo, day.date, day.kept)
                counts, summary = _from_record(day.record)
                out.append(DayEntry(str(day.date), links, counts, summary))
            else:
                out.append(DayEntry(str(day.date), (), pending=day.failure))
        return out

    def _index_figures(
        self, days: Sequence[ArchiveDay], topics: Sequence[SiteTopic], lang: Lang
    ) -> tuple[Figure, ...]:
        """The 30-day chart and one chart per focus topic, from the days' records."""
        recent = sorted(days, key=lambda d: d.date)[-RECENT_DAYS:]
        chart = charts.days_chart([(d.date, d.counts) for d in recent], lang)
        figures = [make_figure("chart-days", chart)]
        for topic in topics:
            per_day = [
                (d.date, len(d.topics[topic.name]) if topic.name in d.topics else None)
                for d in recent
            ]
            title = topic.titles.get(charts.label_lang(lang)) or topic.name
            topic_chart = charts.topic_chart(title, per_day, lang)
            figures.append(make_figure(f"chart-topic-{topic.slug}", topic_chart))
        return tuple(figures)


async def digest_window(store: Store, digest: Digest, filters: Filters = NO_FILTERS) -> WindowData:
    """The items and comments of a digest's window in each repository it covers, less what its
    scope's ``filters`` leave out: what its activity chart shows."""
    found = [await load_window(store, repo, digest.window, url) for repo, url in digest.sources]
    return filtered(merged(found, [repo for repo, _ in digest.sources]), filters)


def report_window(day: date, timezone: str, day_start: str) -> Window:
    """The report window of ``day``: the window chat, the command line and the digest cache
    know by the date (``digest.windows.parse_window``), as it stands once it has ended."""
    after = cutoff(day, zone(timezone), parse_day_start(day_start)) + timedelta(days=2)
    return parse_window(day.isoformat(), now=after, timezone=timezone, day_start=day_start)


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


def _other(day: _Day, lang: Lang, langs: Sequence[Lang]) -> Lang | None:
    """The other language the day's page exists in, when there is one."""
    return next((o for o in langs if o != lang and (o in day.digests or o in day.kept)), None)


def _day_link(here: Route, repo: str, day: date | None, lang: Lang | None) -> str | None:
    """The link from ``here`` to a day's page, when there is that day (in that language)."""
    if day is None or lang is None:
        return None
    return href(here, ROUTES.day(repo, day, lang))


def _sync_start(previous: DayRecord | None, days: Sequence[_Day]) -> datetime:
    """Where the build's sync starts: the first day; or, after a build that recorded the
    mirror, the days the new data can touch, and none before the mirror (the streams bring
    every change since their cursors whatever the window; the days before the mirror were
    fetched by that build, and one still to build fetches its own window)."""
    first = days[0].window.start
    covered = (previous or {}).get("covered_since")
    if not isinstance(covered, str):
        return first
    last = days[-1].window.start
    mirrored = max(last - timedelta(days=LOOKBACK), datetime.fromisoformat(covered))
    return max(first, min(mirrored, last))


def _published(output: Output, repo: str, *, before: date) -> list[date]:
    """The days an earlier build published for ``repo`` (under that name), before ``before``."""
    base = repo.lower()
    found = []
    for key in output.previous_days:
        head, _, stamp = key.rpartition("/")
        try:
            when = date.fromisoformat(stamp)
        except ValueError:
            continue
        if head == base and when < before:
            found.append(when)
    return sorted(found)


def _links(repo: str, day: date, langs: Sequence[Lang]) -> tuple[tuple[Lang, str], ...]:
    """A day's pages in each language, linked from the repository's index."""
    index = ROUTES.repo(repo)
    return tuple((lang, href(index, ROUTES.day(repo, day, lang))) for lang in langs)


def content_hash(digest: Digest) -> str:
    """A hash of what a digest says: not when it was generated or synced (nor whether its
    language came as a string or the enum)."""
    stable = dataclasses.replace(  # a cached digest's language is the enum, a fresh one's
        digest, lang=Lang(digest.lang), generated_at=_EPOCH, synced_at=None
    )
    return hashlib.sha256(repr(stable).encode("utf-8")).hexdigest()


def page_hash(content: str, nav: Nav) -> str:
    """A report page's hash: what its digest says, how pages are rendered, its links."""
    text = "\x00".join((fingerprint(), content, repr(nav)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cited_items(digest: Digest) -> list[tuple[str, str]]:
    """The items a digest shows (their state and fate are on its page): those of its appendix
    lists with their titles and labels, then those its sections link (their titles may be shortened
    there, so none is kept). Each by number, or ``owner/name#N`` in a digest of several
    repositories."""
    several = digest.several

    def key(repo: str, number: int) -> str:
        return f"{repo or digest.repo}#{number}" if several else str(number)

    listed = [
        (key(i.repo, i.number), shown(i.title, i.labels))
        for _, items in digest.lists
        for i in items
    ]
    return listed + [
        (key(span.repo, span.number), "")
        for section in digest.sections
        for span in iter_spans(section.blocks)
        if isinstance(span, ItemRef)
    ]


def _cited(record: DayRecord, repo: str | None = None) -> dict[str, str]:
    """A day's cited items, number to title; of ``repo`` only (its keys ``owner/name#N``) when
    the day is a scope's."""
    cited = record.get("cited")
    if not isinstance(cited, dict):
        return {}
    found = {str(k): v for k, v in cited.items() if isinstance(v, str)}
    if repo is None:
        return found
    prefix = f"{repo.lower()}#"
    return {k[len(prefix) :]: v for k, v in found.items() if k.lower().startswith(prefix)}


def _listed(base: str, label: str, name: str, latest: DayEntry | None) -> SiteRepo:
    """A repository or scope as the site's index lists it, its latest day linked from there."""
    if latest is not None:
        pages = tuple(
            (lang, href(ROUTES.root(), ROUTES.day(base, latest.date, lang)))
            for lang, _ in latest.pages
        )
        latest = dataclasses.replace(latest, pages=pages)
    return SiteRepo(label, name, href(ROUTES.root(), ROUTES.repo(base)), latest)
