"""A report's subject: a scope of one or more repositories, its day, topics and filters.

One repository is the one-element scope (:meth:`Scope.one`): its digest is the repository's
digest, byte for byte. Items of a scope are keyed by repository and number (:class:`ItemKey`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property

from digest.models import Comment, Item, ItemKey

__all__ = ["NO_FILTERS", "Filters", "ItemKey", "Scope"]


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


@dataclass(frozen=True, slots=True)
class Scope:
    """A report's subject: ``repos`` (one or more ``owner/name``, in report order), the day it
    is cut by (``timezone``, ``day_start``), its focus ``topics`` (names; None: each
    repository's own) and ``filters``. ``name`` is the configured name ("" for an ad hoc
    scope)."""

    repos: tuple[str, ...]
    name: str = ""
    timezone: str | None = None  # None: the first repository's
    day_start: str | None = None
    topics: tuple[str, ...] | None = None
    filters: Filters = field(default_factory=Filters)

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
    def several(self) -> bool:
        """Whether the scope has more than one repository (items then name theirs)."""
        return len(self.repos) > 1

    @property
    def plain(self) -> bool:
        """One repository, no filters: the repository's own digest."""
        return not self.several and self.filters.empty

    @property
    def key(self) -> str:
        """A stable identity for caching (the repositories in order, any case, and filters)."""
        return f"{','.join(r.lower() for r in self.repos)}|{self.filters.key}"
