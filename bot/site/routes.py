"""Every URL of the report website, in one table: where each page and feed lives, and the
link from any page to any other (relative, so the site works from any folder or server; or
absolute under the public URL, as feeds want).

A route ending in ``/`` is a folder whose page is its ``index.html``; any other is a file.
Day pages live where :func:`digest.render.html.page_path` says (chat links to them too).
A subject's pages (a repository's, or a scope's) live under its folder: ``owner/name/`` for a
repository, ``scopes/{name}/`` for a configured scope (:func:`scope_base`); the methods that
take ``repo`` take either.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from datetime import date

from digest.models import Lang
from digest.render.html import page_path


@dataclass(frozen=True, slots=True)
class Route:
    """One page or file of the site, by its path from the site's root."""

    path: str  # "" is the root page; "vllm-project/vllm/2026-03-10/zh/"; "…/feed.zh.xml"

    @property
    def is_page(self) -> bool:
        return self.path == "" or self.path.endswith("/")

    @property
    def file(self) -> str:
        """The file written for it."""
        return f"{self.path}index.html" if self.is_page else self.path


SCOPES = "scopes"


def scope_base(name: str) -> str:
    """The folder of the scope ``name``'s pages, as the routes take a repository's name."""
    return f"{SCOPES}/{name.lower()}"


def href(here: Route, there: Route, fragment: str = "") -> str:
    """The relative link from the page (or feed) ``here`` to ``there``."""
    folder = posixpath.dirname(here.file) or "."
    target = posixpath.relpath(there.path.rstrip("/") or ".", folder)
    if there.is_page:
        target = "./" if target == "." else f"{target}/"
    return f"{target}#{fragment}" if fragment else target


def root_of(here: Route) -> str:
    """What a page's links to the site's shared files (assets, search) start with."""
    up = href(here, Route(""))
    return "" if up == "./" else up


@dataclass(frozen=True, slots=True)
class Routes:
    """The routes of a site, and links that are absolute when its public URL is known."""

    site_url: str | None = None

    def link(self, here: Route, there: Route, fragment: str = "") -> str:
        """A link for a feed: absolute under the site's URL when known, else relative."""
        if self.site_url is None:
            return href(here, there, fragment)
        url = f"{self.site_url.rstrip('/')}/{there.path}"
        return f"{url}#{fragment}" if fragment else url

    @staticmethod
    def root() -> Route:
        return Route("")

    @staticmethod
    def search(lang: Lang) -> Route:
        return Route(f"search/{lang}/")

    @staticmethod
    def asset(name: str) -> Route:
        return Route(f"assets/{name}")

    @staticmethod
    def repo(repo: str) -> Route:
        return Route(f"{repo.lower()}/")

    @staticmethod
    def day(repo: str, day: date | str, lang: Lang) -> Route:
        return Route(page_path(repo, str(day), lang))

    @staticmethod
    def feed(repo: str, lang: Lang) -> Route:
        return Route(f"{repo.lower()}/feed.{lang}.xml")

    @staticmethod
    def month(repo: str, year: int, month: int, lang: Lang) -> Route:
        return Route(f"{repo.lower()}/{year}/{month:02d}/{lang}/")

    @staticmethod
    def year(repo: str, year: int, lang: Lang) -> Route:
        return Route(f"{repo.lower()}/{year}/{lang}/")

    @staticmethod
    def topic(repo: str, slug: str, lang: Lang) -> Route:
        return Route(f"{repo.lower()}/topics/{slug}/{lang}/")

    @staticmethod
    def topic_feed(repo: str, slug: str, lang: Lang) -> Route:
        return Route(f"{repo.lower()}/topics/{slug}/feed.{lang}.xml")
