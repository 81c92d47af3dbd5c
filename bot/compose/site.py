"""The report website's builder over a runtime, and the publisher ``serve`` runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bot.compose.runtime import Runtime
from bot.compose.storage import db_path
from config.settings import AppConfig, Settings

if TYPE_CHECKING:
    from bot.site.build import SiteBuilder
    from bot.site.publish import SitePublisher


def site_builder(runtime: Runtime) -> SiteBuilder:
    """The site builder over a runtime's mirror, sync and digest service."""
    from bot.site.build import SiteBuilder

    return SiteBuilder(
        config=runtime.config,
        core=runtime.core,
        store=runtime.store,
        sync=runtime.sync,
        clock=runtime.clock,
        web_url=runtime.settings.github.web_url,
    )


def site_publisher(
    settings: Settings, config: AppConfig, builder: SiteBuilder
) -> tuple[SitePublisher, Path | None]:
    """The publisher of the report website and where ``serve`` serves it (None: it does not).

    With ``VLLM_REPORT_SITE_DIR`` the site is only written there (an external server serves
    it); otherwise it is written beside the mirror and served at ``/reports/``.
    """
    from bot.site.build import SiteOptions
    from bot.site.command import archived_scopes
    from bot.site.publish import SitePublisher

    if settings.site_dir:
        out, served = Path(settings.site_dir).expanduser(), None
    else:
        mirror = Path(db_path(settings.db)) if settings.db != ":memory:" else None
        home = mirror.parent if mirror is not None else Path.home() / ".cache" / "vllm-report"
        out = served = home / "site"
    repos = tuple(dict.fromkeys((*config.repos, config.default_repo)))
    options = SiteOptions(
        out=out, repos=repos, scopes=archived_scopes(config), site_url=settings.site_url
    )
    return SitePublisher(builder, options), served
