"""The report website: ``vllm-report site build`` and ``serve``'s publishing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.site.build import SiteBuilder, SiteOptions, SiteReport

if TYPE_CHECKING:
    from bot.compose import Runtime

__all__ = ["SiteBuilder", "SiteOptions", "SiteReport", "site_builder"]


def site_builder(runtime: Runtime) -> SiteBuilder:
    """The site builder over a runtime's mirror, sync and digest service."""
    return SiteBuilder(
        config=runtime.config,
        core=runtime.core,
        store=runtime.store,
        sync=runtime.sync,
        clock=runtime.clock,
        web_url=runtime.settings.github.web_url,
    )
