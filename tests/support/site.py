"""The report website of the sample day, built for real: fake GitHub, real runtime and builder."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bot.compose import build_runtime
from bot.compose.site import site_builder
from bot.site import SiteOptions, SiteReport
from config.settings import GitHubSettings, RedisSettings, Settings, load_config
from digest.models import Lang
from tests.fakes.github import FakeGitHub, RecordedRequest
from tests.support.clock import Clock
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
    token: str | None = None,
    backfill_days: int = 14,
    prepare: Callable[[FakeGitHub], None] | None = None,
    requests: list[RecordedRequest] | None = None,
    sleeps: list[float] | None = None,
) -> SiteReport:
    """Build the site of the sample repository (plus ``issues``) into ``out``; with
    ``renamed_to``, GitHub knows the repository by that name now (its old one answers 301).
    ``prepare`` sets the fake GitHub up; the requests it answered are added to ``requests``,
    and the waits the GitHub client asked for to ``sleeps`` (which then return at once)."""
    now = clock or Clock(NOW)
    data = sample()
    async with FakeGitHub(clock=now) as github:
        github.add_repo(REPO, issues=[*data["issues"], *issues], comments=data["comments"])
        if renamed_to is not None:
            github.rename(REPO, renamed_to)
        if prepare is not None:
            prepare(github)
        settings = Settings(
            github=GitHubSettings(
                api_url=github.url,
                token=SecretStr(token) if token else None,
                backfill_days=backfill_days,
            ),
            db=str(db),
            redis=RedisSettings(url=None),
        )

        async def sleep(seconds: float) -> None:
            if sleeps is None:
                await asyncio.sleep(seconds)
            else:
                sleeps.append(seconds)

        async with build_runtime(settings, load_config(), clock=now, sleep=sleep) as runtime:
            options = SiteOptions(
                out=out,
                repos=(REPO,),
                days=days,
                langs=tuple(langs),
                site_url=site_url,
                search=search,
            )
            try:
                return await site_builder(runtime).build(options)
            finally:
                if requests is not None:
                    requests.extend(github.requests)


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
