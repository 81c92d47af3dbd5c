"""The report website over a runtime: built by the command line, published by ``serve`` when
configured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.compose import Runtime, build_runtime
from bot.compose.services import build_services
from config.settings import RedisSettings, Settings, SlackSettings, load_config
from tests.support.scope_core import scope_config


async def test_serve_publishes_only_when_configured(tmp_path: Path) -> None:
    """Without a site setting serve builds no site; with VLLM_REPORT_SITE_DIR it writes there
    without serving; with only VLLM_REPORT_SITE_URL it serves the site it writes."""

    async def services(**changes: Any) -> Any:
        settings = Settings(
            db=str(tmp_path / "m.db"),
            redis=RedisSettings(url=None),
            slack=SlackSettings(bot_token="xoxb-x", app_token="xapp-1-x"),
            **changes,
        )
        async with build_runtime(settings, load_config()) as runtime:
            assert isinstance(runtime, Runtime)
            return build_services(settings, load_config(), runtime)

    none = await services()
    assert none.site is None and none.site_root is None
    external = await services(site_dir=str(tmp_path / "www"))
    assert external.site is not None and external.site.options.out == tmp_path / "www"
    assert external.site_root is None
    served = await services(site_url="https://bot.example/reports/")
    assert served.site is not None and served.site_root == tmp_path / "site"


def test_serve_publishes_every_configured_scope(tmp_path: Path) -> None:
    """The site ``serve`` rebuilds holds the configured scopes beside the repositories."""
    from bot.compose.site import site_publisher

    settings = Settings(db=str(tmp_path / "m.db"), site_dir=str(tmp_path / "www"))
    publisher, _ = site_publisher(settings, scope_config(), builder=None)  # type: ignore[arg-type]
    assert publisher.options.scopes == ("serving", "engines")
    assert "vllm-project/vllm" in publisher.options.repos
