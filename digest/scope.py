"""A report's subject: a scope of one or more repositories, its day, topics and filters.

One repository is the one-element scope (:meth:`Scope.one`): its digest is the repository's
digest, byte for byte. Items of a scope are keyed by repository and number (:class:`ItemKey`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cached_property

from digest.errors import NoActiveRepos
from digest.models import Comment, Item, ItemKey

__all__ = ["DEFAULT_OWNER_CAP", "NO_FILTERS", "Filters", "ItemKey", "Picked", "Scope"]

# the repositories an ``owner/*`` entry brings in at most, the most recently pushed first
DEFAULT_OWNER_CAP = 20


def _glob(pattern: str, text: str) -> bool:
    """Whether ``text`` matches the shell-style ``pattern``, case-insensitively, where ``[``
    stands for itself (``*[bot]`` is every login ending in ``[bot]``)."""
    return fnmatchcase(text.lower(), pattern.lower().replace("[", "[[]"))


@dataclass(frozen=True)
class Filters:
    """What a scope leaves out of every section and count.

    An item is kept when it carries one of ``include_labels`` (if any), none of
    ``exclude_labels``, its author matches none of ``exclude_authors`` (globs, any case:
    ``*[bot]``), it is not a bot's when ``exclude_bots``, and its title matches none of
    ``exclude_titles`` (regular expressions, any case: ``^Bump ``). Comments of left-out
    items go too, and so do comments whose author is left out.
    """

    include_labels: tuple[str, ...] = ()
    exclude_labels: tuple[str, ...] = ()
    exclude_authors: tuple[str, ...] = ()
    exclude_bots: bool = False
    exclude_titles: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for pattern in self.exclude_titles:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from exc

    @property
    def empty(self) -> bool:
        return self == Filters()

    @cached_property
    def _titles(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p, re.IGNORECASE) for p in self.exclude_titles)

    def _author_out(self, login: str, is_bot: bool) -> bool:
        return (self.exclude_bots and is_bot) or any(_glob(p, login) for p in self.exclude_authors)

    def admits(self, item: Item) -> bool:
        """Whether ``item`` stays in the report."""
        labels = {label.lower() for label in item.labels}
        if self.include_labels and not labels & {x.lower() for x in self.include_labels}:
            return False
        if labels & {x.lower() for x in self.exclude_labels}:
            return False
        if self._author_out(item.author, item.author_is_bot):
            return False
        return not any(p.search(item.title) for p in self._titles)

    def admits_comment(self, comment: Comment) -> bool:
        """Whether ``comment``'s author stays in the report (its item is judged apart)."""
        return not self._author_out(comment.author, comment.author_is_bot)

    @property
    def key(self) -> str:
        """A stable identity of the filters, for caching."""
        parts = (
            self.include_labels,
            self.exclude_labels,
            self.exclude_authors,
            ("bots",) if self.exclude_bots else (),
            self.exclude_titles,
        )
        return ";".join(",".join(part) for part in parts)


NO_FILTERS = Filters()


def is_owner_entry(entry: str) -> bool:
    """Whether a scope's entry is ``owner/*``: the owner's repositories active in the window."""
    return entry.endswith("/*")


@dataclass(frozen=True, slots=True)
class Picked:
    """What an ``owner/*`` entry came to for one window: ``repos`` (the most recently pushed
    first, at most ``cap``) of the ``active`` repositories pushed to since the window began
    (``active`` counts those the listing reached: more than ``cap`` means some were cut off)."""

    owner: str
    repos: tuple[str, ...]
    active: int
    cap: int

    @property
    def cut(self) -> bool:
        return self.active > len(self.repos)


@dataclass(frozen=True, slots=True)
class Scope:
    """A report's subject: ``repos`` (one or more ``owner/name``, in report order), the day it
    is cut by (``timezone``, ``day_start``), its focus ``topics`` (names; None: each
    repository's own) and ``filters``. ``name`` is the configured name ("" for an ad hoc
    scope). An entry ``owner/*`` of ``repos`` stands for the owner's repositories pushed to
    in the window, at most ``owner_cap`` of them; :meth:`resolved` puts them in its place and
    keeps what each came to in ``picked``."""

    repos: tuple[str, ...]
    name: str = ""
    timezone: str | None = None  # None: the first repository's
    day_start: str | None = None
    topics: tuple[str, ...] | None = None
    filters: Filters = field(default_factory=Filters)
    owner_cap: int = DEFAULT_OWNER_CAP
    picked: tuple[Picked, ...] = ()

    def __post_init__(self) -> None:
        if not self.repos:
            raise ValueError("a scope has at least one repository")
        lowered = [r.lower() for r in self.repos]
        if len(set(lowered)) != len(lowered):
            raise ValueError(f"a scope names a repository twice: {', '.join(self.repos)}")

    @classmethod
    def one(cls, repo: str) -> Scope:
        """The one-element scope of ``repo``."""
        return cls((repo,))

    @property
    def owners(self) -> tuple[str, ...]:
        """The owners of its ``owner/*`` entries, in order (none once :meth:`resolved`)."""
        return tuple(r[:-2] for r in self.repos if is_owner_entry(r))

    def resolved(self, picks: tuple[Picked, ...]) -> Scope:
        """The scope with each ``owner/*`` entry replaced by its pick's repositories (one
        already named is not named twice)."""
        by_owner = {p.owner.lower(): p for p in picks}
        named = {r.lower() for r in self.repos if not is_owner_entry(r)}
        repos: list[str] = []
        for entry in self.repos:
            found = by_owner[entry[:-2].lower()].repos if is_owner_entry(entry) else (entry,)
            for repo in found:
                if repo.lower() not in {r.lower() for r in repos} and (
                    not is_owner_entry(entry) or repo.lower() not in named
                ):
                    repos.append(repo)
        if not repos:
            raise NoActiveRepos(self.owners)
        return replace(self, repos=tuple(repos), picked=picks)

    @property
    def several(self) -> bool:
        """Whether the scope has more than one repository (items then name theirs)."""
        return len(self.repos) > 1 or bool(self.owners)

    @property
    def plain(self) -> bool:
        """One repository, no filters: the repository's own digest."""
        return not self.several and self.filters.empty

    @property
    def key(self) -> str:
        """A stable identity for caching (the repositories in order, any case, and filters)."""
        return f"{','.join(r.lower() for r in self.repos)}|{self.filters.key}"
