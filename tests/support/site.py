"""The report website of the sample day, built for real: fake GitHub, real runtime and builder;
and the site of a scope over two repositories sharing item numbers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bot.compose import build_runtime
from bot.compose.site import site_builder
from bot.site import SiteOptions, SiteReport
from config.settings import AppConfig, GitHubSettings, RedisSettings, Settings, load_config
from digest.models import Lang
from tests.fakes.github import FakeGitHub, Row
from tests.support.clock import Clock
from tests.support.scope_core import scope_config, scope_rows
from tests.support.scopes import NOW as SCOPE_NOW
from tests.support.scopes import VLLM
from tests.support.serve import REPO, sample

# an hour after the sample window (2026-01-31 11:44 Shanghai) ended: that day is the newest report
NOW = datetime(2026, 2, 1, 4, 44, tzinfo=UTC)


async def build_site(
    out: Path,
    db: Path,
    *,
    days: int = 3,
    langs: Sequence[Lang] = tuple(Lang),
    issues: Sequence[dict[str, Any]] = (),
    clock: Clock | None = None,
    site_url: str | None = None,
    search: bool = True,
    renamed_to: str | None = None,
) -> SiteReport:
    """Build the site of the sample repository (plus ``issues``) into ``out``; with
    ``renamed_to``, GitHub knows the repository by that name now (its old one answers 301)."""
    data = sample()
    rows = {REPO: ([*data["issues"], *issues], data["comments"])}
    options = SiteOptions(
        out=out, repos=(REPO,), days=days, langs=tuple(langs), site_url=site_url, search=search
    )
    return await _build(options, db, rows, load_config(), clock or Clock(NOW), renamed_to)


async def build_scope_site(
    out: Path,
    db: Path,
    *,
    repos: Sequence[str] = (VLLM,),
    scopes: Sequence[str] = ("serving",),
    days: int = 2,
    issues: Mapping[str, Sequence[Row]] | None = None,
    clock: Clock | None = None,
    search: bool = False,
    site_url: str | None = None,
    config: AppConfig | None = None,
) -> SiteReport:
    """Build the site of the two repositories sharing item numbers (``tests.support.scopes``,
    plus ``issues`` per repository): ``repos`` and the configured ``scopes``, ``serving``
    (both, without dependency bumps) and ``engines`` (both, unfiltered), unless ``config``
    says otherwise."""
    rows = {
        repo: ([*found, *(issues or {}).get(repo, ())], comments)
        for repo, (found, comments) in scope_rows().items()
    }
    options = SiteOptions(
        out=out,
        repos=tuple(repos),
        scopes=tuple(scopes),
        days=days,
        search=search,
        site_url=site_url,
    )
    return await _build(options, db, rows, config or scope_config(), clock or Clock(SCOPE_NOW))


async def _build(
    options: SiteOptions,
    db: Path,
    rows: Mapping[str, tuple[Sequence[Row], Sequence[Row]]],
    config: AppConfig,
    clock: Clock,
    renamed_to: str | None = None,
) -> SiteReport:
    """Build the site of ``options`` with GitHub serving ``rows`` (issues, comments) by
    repository, over a real runtime whose mirror is ``db``."""
    async with FakeGitHub(clock=clock) as github:
        for repo, (issues, comments) in rows.items():
            github.add_repo(repo, issues=issues, comments=comments)
        if renamed_to is not None:
            github.rename(REPO, renamed_to)
        settings = Settings(
            github=GitHubSettings(api_url=github.url),
            db=str(db),
            redis=RedisSettings(url=None),
        )
        async with build_runtime(settings, config, clock=clock) as runtime:
            return await site_builder(runtime).build(options)


def build_site_sync(out: Path, db: Path, **kw: Any) -> SiteReport:
    """``build_site`` for module-scoped fixtures, which run outside the test's event loop."""
    return asyncio.run(build_site(out, db, **kw))


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """Serve ``root`` on 127.0.0.1 as ``python -m http.server`` would; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
