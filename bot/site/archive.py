"""A repository's archive pages: every month and year of report days, and each focus topic's
page and feeds, from the days the build knows (rebuilt or carried over from its record).

Laid out beside the day pages: ``2026/03/{lang}/``, ``2026/{lang}/``,
``topics/{topic}/{lang}/`` and ``topics/{topic}/feed.{lang}.xml``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from bot.site.feed import AtomEntry, render_atom
from bot.site.output import DayRecord, Output
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
from digest.render.charts import COUNT_KEYS
from digest.render.html import DayEntry, Nav, PeriodEntry, anchor
from digest.render.html import figure as make_figure

RECENT_DAYS = 30  # the days a repository's index lists before its months
FEED_DAYS = 60  # the newest days a topic's feed carries
CHART_DAYS = 30  # the days a topic's chart shows


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
    seen: dict[int, TopicItem] = {}
    for span in iter_spans(section.blocks):
        if isinstance(span, ItemRef) and span.number not in seen:
            seen[span.number] = TopicItem(span.number, span.title, span.url)
    return tuple(seen.values())


def topics_record(digest: Digest, topics: Sequence[SiteTopic]) -> dict[str, list[list[object]]]:
    """A day's topic items as the site's manifest records them."""
    return {
        t.name: [[i.number, i.title, i.url] for i in topic_items(digest, t.name)] for t in topics
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
                    TopicItem(int(n), str(title), str(url)) for n, title, url in items
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
    """Writes a repository's month, year and topic pages and its topic feeds."""

    def __init__(
        self,
        output: Output,
        *,
        repo: str,
        name: str,
        repo_url: str,
        langs: Sequence[Lang],
        site_url: str | None,
    ) -> None:
        self._output = output
        self._repo = repo
        self._base = repo.lower()
        self._name = name
        self._repo_url = repo_url
        self._langs = tuple(langs)
        self._site_url = site_url.rstrip("/") if site_url else None

    def write(self, days: Sequence[ArchiveDay], topics: Sequence[SiteTopic]) -> ArchiveIndex:
        """Every page of the archive; what the repository's index links to."""
        ordered = sorted(days, key=lambda d: d.date)
        index = ArchiveIndex()
        months: dict[tuple[int, int], list[ArchiveDay]] = {}
        for day in ordered:
            months.setdefault((day.date.year, day.date.month), []).append(day)
        primary = self._langs[0]
        month_entries, year_entries = [], []
        for (year, month), in_month in months.items():
            for lang in self._langs:
                self._month_page(year, month, in_month, lang)
                index.pages += 1
            month_entries.append(
                PeriodEntry(
                    month_label(year, month, primary),
                    tuple((lang, f"{year}/{month:02d}/{lang}/") for lang in self._langs),
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
                    tuple((lang, f"{year}/{lang}/") for lang in self._langs),
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
            links.append((title, f"topics/{topic.slug}/{primary}/"))
        index.months = tuple(reversed(month_entries))
        index.years = tuple(reversed(year_entries))
        index.topics = tuple(links)
        return index

    def _other(self, lang: Lang) -> str | None:
        others = [o for o in self._langs if o != lang]
        return f"../{others[0]}/" if others else None

    def _month_page(self, year: int, month: int, days: Sequence[ArchiveDay], lang: Lang) -> None:
        period = month_label(year, month, lang)
        entries = tuple(
            DayEntry(
                str(d.date),
                tuple((pl, f"../../../{d.date}/{pl}/") for pl in d.langs),
                d.counts,
                _summary(d, lang),
            )
            for d in days
        )
        page = PeriodPage(
            self._repo,
            self._name,
            self._repo_url,
            site_t("site.month_title", lang, name=self._name, period=period),
            days=entries,
            up=(site_t("site.year", lang, year=year), f"../../{lang}/"),
            other_lang=self._other(lang),
        )
        nav = Nav(root="../" * 5, lang=lang, repo_index="../../../")
        self._output.write(
            f"{self._base}/{year}/{month:02d}/{lang}/index.html", render_period(page, nav)
        )

    def _year_page(self, year: int, months: Mapping[int, Sequence[ArchiveDay]], lang: Lang) -> None:
        periods = tuple(
            PeriodEntry(
                month_label(year, m, lang), ((lang, f"../{m:02d}/{lang}/"),), len(d), _sum(d)
            )
            for m, d in sorted(months.items())
        )
        period = site_t("site.year", lang, year=year)
        page = PeriodPage(
            self._repo,
            self._name,
            self._repo_url,
            site_t("site.month_title", lang, name=self._name, period=period),
            periods=periods,
            other_lang=self._other(lang),
        )
        nav = Nav(root="../" * 4, lang=lang, repo_index="../../")
        self._output.write(f"{self._base}/{year}/{lang}/index.html", render_period(page, nav))

    def _topic_days(
        self, topic: SiteTopic, days: Sequence[ArchiveDay], lang: Lang
    ) -> list[TopicDay]:
        """The days that cited an item of ``topic``, newest first (links from the topic page)."""
        return [
            TopicDay(
                str(d.date),
                f"../../../{d.date}/{lang if lang in d.langs else d.langs[0]}/#topic-{topic.slug}",
                d.topics[topic.name],
            )
            for d in reversed(days)
            if d.topics.get(topic.name) and d.langs
        ]

    def _topic_page(self, topic: SiteTopic, days: Sequence[ArchiveDay], lang: Lang) -> None:
        title = topic.titles.get(lang) or topic.name
        recent = days[-CHART_DAYS:]
        per_day = [
            (d.date, len(d.topics[topic.name]) if topic.name in d.topics else None) for d in recent
        ]
        chart_title = topic.titles.get(charts.label_lang(lang)) or topic.name
        chart = charts.topic_chart(chart_title, per_day, lang)
        page = TopicPage(
            self._repo,
            self._name,
            self._repo_url,
            site_t("site.topic_title", lang, name=self._name, topic=title),
            title,
            tuple(self._topic_days(topic, days, lang)),
            (make_figure(f"chart-topic-{topic.slug}", chart),),
            f"../feed.{lang}.xml",
            self._other(lang),
        )
        nav = Nav(root="../" * 5, lang=lang, repo_index="../../../", feed=f"../feed.{lang}.xml")
        path = f"{self._base}/topics/{topic.slug}/{lang}/index.html"
        self._output.write(path, render_topic(page, nav))

    def _topic_feed(self, topic: SiteTopic, days: Sequence[ArchiveDay], lang: Lang) -> None:
        """The topic's Atom feed in ``lang``: one entry per day that cited its items."""
        title = topic.titles.get(lang) or topic.name
        folder = f"{self._base}/topics/{topic.slug}"
        prefix = f"{self._site_url}/{self._base}/" if self._site_url else "../../"
        entries = []
        for day in self._topic_days(topic, days, lang)[:FEED_DAYS]:
            known = next(d for d in days if str(d.date) == day.date)
            entries.append(
                AtomEntry(
                    f"urn:vllm-report:{self._base}:topic:{topic.name}:{day.date}:{lang}",
                    site_t("site.topic_day", lang, date=day.date, topic=title),
                    known.updated,
                    prefix + day.href.removeprefix("../../../"),
                    render_topic_items(day.items),
                )
            )
        feed_name = f"feed.{lang}.xml"
        feed_url = f"{self._site_url}/{folder}/{feed_name}" if self._site_url else feed_name
        home = f"{self._site_url}/{folder}/{lang}/" if self._site_url else f"{lang}/"
        body = render_atom(
            f"urn:vllm-report:{self._base}:topic:{topic.name}:{lang}",
            site_t("site.topic_feed_title", lang, name=self._name, topic=title),
            lang,
            feed_url,
            home,
            entries,
        )
        self._output.write(f"{folder}/{feed_name}", body)
