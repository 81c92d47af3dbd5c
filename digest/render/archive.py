"""Archive pages of the report website: a repository's months, years and focus topics.

Pure functions of the site's indexes, rendered with the report pages' Jinja environment
(autoescape on, links only to http(s) URLs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from digest.render.html import CSP_STATIC, DayEntry, Figure, Nav, PeriodEntry, _env


@dataclass(frozen=True, slots=True)
class TopicItem:
    """An item a focus topic cited on a day."""

    number: int
    title: str
    url: str
    repo: str = ""  # set in a scope of several repositories: shown as "owner/name#N"

    @property
    def label(self) -> str:
        """``#N``, or ``owner/name#N`` when the item names its repository."""
        return f"{self.repo}#{self.number}"


@dataclass(frozen=True, slots=True)
class PeriodPage:
    """A month's page (its days) or a year's (its months), in one language."""

    repo: str
    display_name: str
    repo_url: str
    title: str
    days: tuple[DayEntry, ...] = ()  # a month: every report day, oldest first
    periods: tuple[PeriodEntry, ...] = ()  # a year: every month, oldest first
    up: tuple[str, str] | None = None  # (label, href): a month's year
    other_lang: str | None = None


@dataclass(frozen=True, slots=True)
class TopicDay:
    """One day of a topic's page: the day's report and the items the topic cited."""

    date: str
    href: str  # the topic's section on the day's page
    items: tuple[TopicItem, ...]


@dataclass(frozen=True, slots=True)
class TopicPage:
    """A focus topic's page in one language: its chart and its items by day, newest first."""

    repo: str
    display_name: str
    repo_url: str
    title: str
    topic: str
    days: tuple[TopicDay, ...]
    figures: tuple[Figure, ...] = ()
    feed: str = ""
    other_lang: str | None = None


def render_period(page: PeriodPage, nav: Nav) -> str:
    """A month's or a year's index page."""
    return (
        _env().get_template("period.html").render(page=page, nav=nav, lang=nav.lang, csp=CSP_STATIC)
    )


def render_topic(page: TopicPage, nav: Nav) -> str:
    """A focus topic's page: its chart, then every day that cited an item of it."""
    return (
        _env()
        .get_template("topic.html")
        .render(page=page, nav=nav, lang=nav.lang, csp=CSP_STATIC, figures=page.figures)
    )


def render_topic_items(items: Sequence[TopicItem]) -> str:
    """A day's topic items as an HTML list (a topic feed entry's content)."""
    return str(_env().get_template("topic_items.html").render(items=tuple(items))).strip()
