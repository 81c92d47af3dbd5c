"""The report website in chat: the day's activity chart as an image, the link to its page."""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import date

from bot.site.build import digest_window, report_window
from bot.site.routes import scope_base
from config.settings import AppConfig
from digest.errors import ConfigError, DigestError
from digest.mirror.store import Store
from digest.models import Digest
from digest.render.charts import ChartImage, activity_chart, chat_image
from digest.render.html import page_path
from digest.scope import NO_FILTERS, Scope

log = logging.getLogger(__name__)

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
MAX_CHART_DAYS = 1.0  # a longer window (a weekly post) gets no hourly chart


class ChatExtras:
    """What a chat digest adds from the website: the day's chart and the day's page."""

    def __init__(self, *, store: Store, config: AppConfig, site_url: str | None) -> None:
        self._store = store
        self._config = config
        self._site_url = site_url.rstrip("/") if site_url else None

    def page_url(self, digest: Digest) -> str | None:
        """The day's page when the site is published and ``digest`` is exactly a report day
        of a repository or a configured scope (the site has no page of an ad hoc one)."""
        if self._site_url is None or not _DATE.fullmatch(digest.window.label):
            return None
        base, timezone, day_start = digest.repo, None, None
        if digest.scope or digest.several:
            scope = self._scope(digest)
            if scope is None:
                return None
            base, timezone, day_start = scope_base(scope.name), scope.timezone, scope.day_start
        conf = self._config.repo(digest.repo)
        day = date.fromisoformat(digest.window.label)
        window = report_window(day, timezone or conf.timezone, day_start or conf.day_start)
        if (window.start, window.end) != (digest.window.start, digest.window.end):
            return None  # another cut-off than the site's: no page shows this window
        return f"{self._site_url}/{page_path(base, day.isoformat(), digest.lang)}"

    def _scope(self, digest: Digest) -> Scope | None:
        """The configured scope ``digest`` is of, when it is of one."""
        if not digest.scope:
            return None
        try:
            return self._config.scope(digest.scope)
        except ConfigError:
            return None

    async def chart(self, digest: Digest) -> ChartImage | None:
        """The activity per hour of the digest's window as a PNG; ``None`` when it cannot be.

        A chart never blocks a digest: a failure is logged and the digest goes out as text.
        """
        if digest.window.days > MAX_CHART_DAYS:
            return None
        try:
            scope = self._scope(digest)
            data = await digest_window(self._store, digest, scope.filters if scope else NO_FILTERS)
            chart = activity_chart(digest.window, data.items, data.comments, digest.lang)
            day = digest.window.label or digest.window.start.strftime("%Y-%m-%d")
            name = f"activity-{day}.png"
            # drawing the PNG is plain computation: off the event loop, which goes on serving
            return await asyncio.to_thread(chat_image, chart, name)
        except (DigestError, OSError, ValueError, RuntimeError) as exc:
            log.warning(
                "chat.chart_failed",
                extra={"repo": digest.repo, "error": type(exc).__name__, "reason": str(exc)},
            )
            return None
