"""The report website in chat: the day's activity chart as an image, the link to its page."""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import date

from bot.site.build import report_window
from config.settings import AppConfig
from digest.builder import load_window
from digest.errors import DigestError
from digest.mirror.store import Store
from digest.models import Digest
from digest.render.charts import ChartImage, activity_chart, chat_image
from digest.render.html import page_path

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
        """The day's page when the site is published and ``digest`` is exactly a report day."""
        if self._site_url is None or not _DATE.fullmatch(digest.window.label):
            return None
        conf = self._config.repo(digest.repo)
        day = date.fromisoformat(digest.window.label)
        window = report_window(day, conf.timezone, conf.day_start)
        if (window.start, window.end) != (digest.window.start, digest.window.end):
            return None  # another cut-off than the site's: no page shows this window
        return f"{self._site_url}/{page_path(digest.repo, day.isoformat(), digest.lang)}"

    async def chart(self, digest: Digest) -> ChartImage | None:
        """The activity per hour of the digest's window as a PNG; ``None`` when it cannot be.

        A chart never blocks a digest: a failure is logged and the digest goes out as text.
        """
        if digest.window.days > MAX_CHART_DAYS:
            return None
        try:
            data = await load_window(self._store, digest.repo, digest.window, digest.repo_url)
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
