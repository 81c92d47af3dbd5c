"""The core's own errors; adapters translate lower-level failures into these."""

from __future__ import annotations

from datetime import datetime

from digest.models import Lang


class DigestError(Exception):
    """Base class of every error the core raises on purpose."""


class BadWindow(DigestError):
    """A window that is malformed, in the future or too long."""


class NotFound(DigestError):
    """The repository (or another named thing) does not exist or is not visible."""

    def __init__(self, what: str) -> None:
        super().__init__(f"not found: {what}")
        self.what = what


class Gone(NotFound):
    """GitHub answered 410: the item was deleted (or the repository's issues are disabled)."""


class RepoRefused(DigestError):
    """A repository that may not be followed or read here: ``reason`` is ``not_allowed`` (off
    the allow-list, whose patterns ``allowed`` shows), ``private`` (private and not
    allow-listed) or ``missing`` (GitHub does not have it, or does not show it); ``lang`` is
    the language to word it in."""

    def __init__(self, repo: str, reason: str, *, allowed: str = "", lang: Lang = Lang.EN) -> None:
        super().__init__(f"{repo}: {reason}")
        self.repo = repo
        self.reason = reason
        self.allowed = allowed
        self.lang = lang

    def worded_in(self, lang: Lang) -> RepoRefused:
        """The same refusal, to be worded in ``lang``."""
        return RepoRefused(self.repo, self.reason, allowed=self.allowed, lang=lang)


class NoActiveRepos(NotFound):
    """No repository of the scope's ``owners`` (its ``owner/*`` entries) was pushed to in the
    window, and the scope names no other."""

    def __init__(self, owners: tuple[str, ...]) -> None:
        names = ", ".join(f"{o}/*" for o in owners)
        super().__init__(f"{names}: no repository pushed to in the window")
        self.owners = owners


class RateLimited(DigestError):
    """The GitHub rate limit is exhausted until ``reset_at``."""

    def __init__(self, reset_at: datetime | None, *, authenticated: bool) -> None:
        super().__init__("GitHub rate limit exhausted")
        self.reset_at = reset_at
        self.authenticated = authenticated


class SourceUnavailable(DigestError):
    """GitHub (or another upstream) could not be reached or kept failing."""


class SearchRefused(DigestError):
    """GitHub's Search API refused a query (a 4xx other than the rate limit): ``status`` and
    GitHub's ``message`` say why."""

    def __init__(self, repo: str, status: int, message: str) -> None:
        super().__init__(f"GitHub refused to search {repo} ({status}: {message})")
        self.repo = repo
        self.status = status
        self.message = message


class RepoMoved(DigestError):
    """The repository ``old`` is called ``new`` now (GitHub redirects its old name, but its
    Search API does not)."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__(f"{old} is now {new}")
        self.old = old
        self.new = new


class ConfigError(DigestError):
    """The configuration is invalid (unknown topic, bad setting)."""


class StateUnavailable(DigestError):
    """Shared state (Redis) could not be reached; callers degrade instead of failing."""


class ThreadTaken(RuntimeError):
    """Another replica took over the thread being posted (its claim expired): stop posting."""
