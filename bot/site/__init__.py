"""The report website: ``vllm-report site build`` and ``serve``'s publishing."""

from bot.site.build import SiteBuilder, SiteOptions, SiteReport

__all__ = ["SiteBuilder", "SiteOptions", "SiteReport"]
