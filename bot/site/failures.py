"""Why a day of the site has no report yet, in the site's words (a page reader cannot retry
a command, so nothing here speaks of commands or of trying again in a few minutes)."""

from __future__ import annotations

from datetime import UTC, datetime

from digest.errors import (
    DigestError,
    NotFound,
    RateLimited,
    RepoRefused,
    SearchRefused,
    SourceUnavailable,
)
from digest.github.reserve import BudgetReserved
from digest.i18n.site import site_t
from digest.models import Lang
from digest.state.limiter import Limited


def failure_text(error: DigestError, lang: Lang) -> str:
    """The reason a day is pending after ``error``, shown on the repository's index."""
    if isinstance(error, RateLimited | BudgetReserved):
        return _rate_limited(error.reset_at, lang)
    if isinstance(error, Limited):
        return _rate_limited(None, lang)
    if isinstance(error, SearchRefused):
        return site_t("site.failed.search", lang, status=error.status)
    if isinstance(error, RepoRefused):
        return site_t("site.failed.refused", lang)
    if isinstance(error, NotFound):
        return site_t("site.failed.not_found", lang)
    if isinstance(error, SourceUnavailable):
        return site_t("site.failed.unreachable", lang)
    return site_t("site.failed.other", lang, error=type(error).__name__)


def _rate_limited(reset_at: datetime | None, lang: Lang) -> str:
    if reset_at is None:
        return site_t("site.failed.rate_limited_unknown", lang)
    reset = reset_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return site_t("site.failed.rate_limited", lang, reset=reset)
