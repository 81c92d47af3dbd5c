"""A repository's archive pages: every month and year of report days, and each focus topic's
page and feeds, from the days the build knows (rebuilt or carried over from its record).

Laid out beside the day pages: ``2026/03/{lang}/``, ``2026/{lang}/``,
``topics/{topic}/{lang}/`` and ``topics/{topic}/feed.{lang}.xml``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from bot.site.feed import AtomEntry, render_atom
from bot.site.output import DayRecord, Output
from bot.site.routes import Route, Routes, href, root_of
from digest.i18n.site import month_label, site_t
from digest.models import Counts, Digest, ItemRef, Lang, iter_spans
from digest.render import charts
from digest.render.archive import (
    PeriodPage,
    TopicDay,
    TopicItem,
    TopicPage,
    render_period,
    render_topic,
    render_topic_items,
)
from digest.render.charts import COUNT_KEYS, Chart
from digest.render.html import DayEntry, Nav, PeriodEntry, anchor
from digest.render.html import figure as make_figure

RECENT_DAYS = 30  # the days a repository's index lists before its months
FEED_DAYS = 60  # the newest days a feed (a repository's, a topic's) carries
DAILY_CHART_DAYS = 92  # a topic's history longer than this is charted by month


@dataclass(frozen=True, slots=True)
class ArchiveDay:
    """One report day as the archive pages show it."""

    date: date
    langs: tuple[Lang, ...]  # the languages its page exists in
    counts: Counts | None = None
    summaries: Mapping[str, str] = field(default_factory=dict)  # lang -> first sentence
    topics: Mapping[str, tuple[TopicItem, ...]] = field(default_factory=dict)
    updated: str = ""  # when the day's window ended (RFC 3339)


@dataclass(frozen=True, slots=True)
class SiteTopic:
    """A focus topic of the repository: its name and its title per language."""

    name: str
    titles: Mapping[str, str]

    @property
    def slug(self) -> str:
        return anchor(self.name)


def topic_items(digest: Digest, name: str) -> tuple[TopicItem, ...]:
    """The items the digest's section of topic ``name`` links, in order, each once."""
    section = digest.section(f"topic:{name}")
    if section is None:
        return ()
    seen: dict[tuple[str, int], TopicItem] = {}
    for span in iter_spans(section.blocks):
        if isinstance(span, ItemRef) and (span.repo, span.number) not in seen:
            seen[span.repo, span.number] = TopicItem(span.number, span.title, span.url, span.repo)
    return tuple(seen.values())


def topics_record(digest: Digest, topics: Sequence[SiteTopic]) -> dict[str, list[list[object]]]:
    """A day's topic items as the site's manifest records them (with its repository, in a
    scope of several)."""
    return {
        t.name: [
            [i.number, i.title, i.url, *([i.repo] if i.repo else [])]
            for i in topic_items(digest, t.name)
        ]
        for t in topics
    }


def archive_day(day: date, langs: Sequence[Lang], record: DayRecord | None, end: str) -> ArchiveDay:
    """A day from its record (written by this build or an earlier one); unknown parts left out."""
    record = record or {}
    try:
        counts: Counts | None = Counts(**{k: int(record["counts"][k]) for k in COUNT_KEYS})
    except (KeyError, TypeError, ValueError):
        counts = None
    raw = record.get("summaries")
    summaries = (
        {str(k): v for k, v in raw.items() if isinstance(v, str)} if isinstance(raw, dict) else {}
    )
    if not summaries and isinstance(record.get("summary"), str):
        summaries = {"": record["summary"]}
    topics: dict[str, tuple[TopicItem, ...]] = {}
    stored = record.get("topics")
    if isinstance(stored, dict):
        for name, items in stored.items():
            try:
                topics[str(name)] = tuple(
                    TopicItem(int(n), str(title), str(url), *(str(r) for r in rest[:1]))
                    for n, title, url, *rest in items
                )
            except (TypeError, ValueError):
                continue
    return ArchiveDay(day, tuple(langs), counts, summaries, topics, end)


def _summary(day: ArchiveDay, lang: Lang) -> str:
    return day.summaries.get(lang) or next(iter(day.summaries.values()), "")


def _sum(days: Sequence[ArchiveDay]) -> Counts | None:
    known = [d.counts for d in days if d.counts is not None]
    if not known:
        return None
    return Counts(**{k: sum(c.as_dict()[k] for c in known) for k in COUNT_KEYS})


@dataclass
class ArchiveIndex:
    """What the repository's index links to: months and years newest first, the topics."""

    months: tuple[PeriodEntry, ...] = ()
    years: tuple[PeriodEntry, ...] = ()
    topics: tuple[tuple[str, str], ...] = ()
    pages: int = 0


class ArchiveWriter:
    """Writes a repository's (or a scope's) month, year and topic pages and its topic feeds;
    ``repo`` is where they live (see :mod:`bot.site.routes`), ``label`` what the pages show
    for it when that is not the same (a scope's repositories)."""

    def __init__(
        self,
        output: Output,
        *,
        repo: str,
        name: str,
        repo_url: str,
        langs: Sequence[Lang],
        routes: Routes,
        label: str = "",
    ) -> None:
        self._output = output
        self._repo = repo
        self._label = label or repo
        self._base = repo.lower()
        self._name = name
        self._repo_url = repo_url
        self._langs = tuple(langs)
        self._routes = routes

    def write(self, days: Sequence[ArchiveDay], topics: Sequence[SiteTopic]) -> ArchiveIndex:
        """Every page of the archive; what the repository's index links to."""
        ordered = sorted(days, key=lambda d: d.date)
        index = ArchiveIndex()
        months: dict[tuple[int, int], list[ArchiveDay]] = {}
        for day in ordered:
            months.setdefault((day.date.year, day.date.month), []).append(day)
        primary = self._langs[0]
        index_page = self._routes.repo(self._repo)
        month_entries, year_entries = [], []
        for (year, month), in_month in months.items():
            for lang in self._langs:
                self._month_page(year, month, in_month, lang)
                index.pages += 1
            month_entries.append(
                PeriodEntry(
                    month_label(year, month, primary),
                    tuple(
                        (lang, href(index_page, self._routes.month(self._repo, year, month, lang)))
                        for lang in self._langs
                    ),
                    len(in_month),
                    _sum(in_month),
                )
            )
        for year in sorted({y for y, _ in months}):
            in_year = {m: d for (y, m), d in months.items() if y == year}
            for lang in self._langs:
                self._year_page(year, in_year, lang)
                index.pages += 1
            all_days = [d for ds in in_year.values() for d in ds]
            year_entries.append(
                PeriodEntry(
                    site_t("site.year", primary, year=year),
                    tuple(
                        (lang, href(index_page, self._routes.year(self._repo, year, lang)))
                        for lang in self._langs
                    ),
                    len(all_days),
                    _sum(all_days),
                )
            )
        links = []
        for topic in topics:
            for lang in self._langs:
                self._topic_page(topic, ordered, lang)
                self._topic_feed(topic, ordered, lang)
                index.pages += 1
            title = topic.titles.get(primary) or topic.name
            links.append(
                (title, href(index_page, self._routes.topic(self._repo, topic.slug, primary)))
            )
        index.months = tuple(reversed(month_entries))
        index.years = tuple(reversed(year_entries))
        index.topics = tuple(links)
        return index

    def _other(self, here: Route, there: Route | None) -> str | None:
        return href(here, there) if there is not None else None

    def _other_lang(self, lang: Lang) -> Lang | None:
        return next((o for o in self._langs if o != lang), None)

    def _nav(self, here: Route, lang: Lang, feed: Route | None = None) -> Nav:
        return Nav(
            root=root_of(here),
            lang=lang,
            repo_index=href(here, self._routes.repo(self._repo)),
            feed=href(here, feed) if feed is not None else None,
        )

    def _month_page(self, year: int, month: int, days: Sequence[ArchiveDay], lang: Lang) -> None:
        period = month_label(year, month, lang)
        routes, repo = self._routes, self._repo
        here = routes.month(repo, year, month, lang)
        other = self._other_lang(lang)
        entries = tuple(
            DayEntry(
                str(d.date),
                tuple((pl, href(here, routes.day(repo, d.date, pl))) for pl in d.langs),
                d.counts,
                _summary(d, lang),
            )
            for d in days
        )
        page = PeriodPage(
            self._label,
            self._name,
            self._repo_url,
            site_t("site.month_title", lang, name=self._name, period=period),
            days=entries,
            up=(site_t("site.year", lang, year=year), href(here, routes.year(repo, year, lang))),
            other_lang=self._other(here, routes.month(repo, year, month, other) if other else None),
        )
        self._output.write(here.file, render_period(page, self._nav(here, lang)))

    def _year_page(self, year: int, months: Mapping[int, Sequence[ArchiveDay]], lang: Lang) -> None:
        routes, repo = self._routes, self._repo
        here = routes.year(repo, year, lang)
        other = self._other_lang(lang)
        periods = tuple(
            PeriodEntry(
                month_label(year, m, lang),
                ((lang, href(here, routes.month(repo, year, m, lang))),),
                len(d),
                _sum(d),
            )
            for m, d in sorted(months.items())
        )
        period = site_t("site.year", lang, year=year)
        page = PeriodPage(
            self._label,
            self._name,
            self._repo_url,
            site_t("site.month_title", lang, name=self._name, period=period),
            periods=periods,
            other_lang=self._other(here, routes.year(repo, year, other) if other else None),
        )
        self._output.write(here.file, render_period(page, self._nav(here, lang)))

    def _topic_days(
        self,
        topic: SiteTopic,
        days: Sequence[ArchiveDay],
        lang: Lang,
        link: Callable[[Route, str], str],
    ) -> list[TopicDay]:
        """The days that cited an item of ``topic``, newest first, each linked by ``link``
        (of the day's page and the topic's anchor on it)."""
        return [
            TopicDay(
                str(d.date),
                link(
                    self._routes.day(self._repo, d.date, lang if lang in d.langs else d.langs[0]),
                    f"topic-{topic.slug}",
                ),
                d.topics[topic.name],
            )
            for d in reversed(days)
            if d.topics.get(topic.name) and d.langs
        ]

    def _topic_chart(self, topic: SiteTopic, days: Sequence[ArchiveDay], lang: Lang) -> Chart:
        """The topic's whole history: its items per day, or per month when it is long."""
        title = topic.titles.get(charts.label_lang(lang)) or topic.name
        if len(days) <= DAILY_CHART_DAYS:
            per_day = [
                (d.date, len(d.topics[topic.name]) if topic.name in d.topics else None)
                for d in days
            ]
            return charts.topic_chart(title, per_day, lang)
        months: dict[tuple[int, int], int] = {}
        for d in days:
            key = (d.date.year, d.date.month)
            months[key] = months.get(key, 0) + len(d.topics.get(topic.name, ()))
        return charts.topic_months_chart(title, sorted(months.items()), lang)

    def _topic_page(self, topic: SiteTopic, days: Sequence[ArchiveDay], lang: Lang) -> None:
        title = topic.titles.get(lang) or topic.name
        routes, repo = self._routes, self._repo
        here = routes.topic(repo, topic.slug, lang)
        feed = routes.topic_feed(repo, topic.slug, lang)
        other = self._other_lang(lang)
        chart = self._topic_chart(topic, days, lang)

        def link(day: Route, fragment: str) -> str:
            return href(here, day, fragment)

        page = TopicPage(
            self._label,
            self._name,
            self._repo_url,
            site_t("site.topic_title", lang, name=self._name, topic=title),
            title,
            tuple(self._topic_days(topic, days, lang, link)),
            (make_figure(f"chart-topic-{topic.slug}", chart),),
            href(here, feed),
            self._other(here, routes.topic(repo, topic.slug, other) if other else None),
        )
        self._output.write(here.file, render_topic(page, self._nav(here, lang, feed)))

    def _topic_feed(self, topic: SiteTopic, days: Sequence[ArchiveDay], lang: Lang) -> None:
        """The topic's Atom feed in ``lang``: one entry per day that cited its items, the
        newest ``FEED_DAYS``."""
        title = topic.titles.get(lang) or topic.name
        routes, repo = self._routes, self._repo
        here = routes.topic_feed(repo, topic.slug, lang)
        updated = {str(d.date): d.updated for d in days}

        def link(day: Route, fragment: str) -> str:
            return routes.link(here, day, fragment)

        entries = [
            AtomEntry(
                f"urn:vllm-report:{self._base}:topic:{topic.name}:{day.date}:{lang}",
                site_t("site.topic_day", lang, date=day.date, topic=title),
                updated[day.date],
                day.href,
                render_topic_items(day.items),
            )
            for day in self._topic_days(topic, days, lang, link)[:FEED_DAYS]
        ]
        body = render_atom(
            f"urn:vllm-report:{self._base}:topic:{topic.name}:{lang}",
            site_t("site.topic_feed_title", lang, name=self._name, topic=title),
            lang,
            routes.link(here, here),
            routes.link(here, routes.topic(repo, topic.slug, lang)),
            entries,
        )
        self._output.write(here.file, body)
