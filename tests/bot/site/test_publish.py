"""`serve` publishes the website: a rebuild after each daily post, the files at /reports/ with
their content types and caching headers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from bot.compose import build_runtime
from bot.compose.site import site_builder
from bot.site import SiteOptions
from bot.site.publish import SitePublisher, add_site_routes, publishing
from config.settings import GitHubSettings, RedisSettings, Settings, load_config
from digest.models import Digest
from digest.schedule.subscription import Subscription
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.serve import REPO, sample, sample_digest, subscription
from tests.support.site import NOW, build_site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("published")
    asyncio.run(build_site(root / "site", root / "m.db", days=2))
    return root / "site"


@pytest.fixture
async def reports(site: Path) -> AsyncIterator[str]:
    """The site served by an aiohttp app at /reports/, as serve's HTTP port serves it."""
    app = web.Application()
    add_site_routes(app, site)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    tcp = web.TCPSite(runner, "127.0.0.1", 0)
    await tcp.start()
    host, port = runner.addresses[0][:2]
    yield f"http://{host}:{port}"
    await runner.cleanup()


async def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(url, allow_redirects=False) as response,
    ):
        return response.status, dict(response.headers), await response.read()


@pytest.mark.parametrize(
    ("path", "content_type", "cache"),
    [
        ("/reports/", "text/html; charset=utf-8", "no-cache"),
        ("/reports/vllm-project/vllm/2026-01-31/zh/", "text/html; charset=utf-8", "no-cache"),
        (
            "/reports/vllm-project/vllm/feed.en.xml",
            "application/atom+xml; charset=utf-8",
            "no-cache",
        ),
        ("/reports/assets/style.css", "text/css; charset=utf-8", "no-cache"),
        ("/reports/pagefind/pagefind-ui.js", "text/javascript; charset=utf-8", "no-cache"),
    ],
)
async def test_files_are_served_with_their_type_and_caching(
    reports: str, path: str, content_type: str, cache: str
) -> None:
    """Pages, feeds, styles and scripts come with their content type and revalidate."""
    status, headers, body = await _get(reports + path)
    assert status == 200 and body
    assert headers["Content-Type"] == content_type
    assert headers["Cache-Control"] == cache
    assert headers["X-Content-Type-Options"] == "nosniff"


async def test_search_index_files_are_cached(reports: str, site: Path) -> None:
    """Pagefind's content-named index files may be cached for a day."""
    name = next((site / "pagefind").glob("*.pf_meta")).name
    status, headers, _ = await _get(f"{reports}/reports/pagefind/{name}")
    assert status == 200 and headers["Cache-Control"] == "public, max-age=86400"
    assert headers["Content-Type"] == "application/octet-stream"


@pytest.mark.parametrize(
    "path",
    [
        "/reports/../m.db",
        "/reports/%2e%2e/m.db",
        "/reports/.vllm-report-site.json",
        "/reports/nope/",
        "/reports/%00",
        "/reports/vllm-project/%00/index.html",
        "/reports/%ff",
        "/reports/%c0%ae%c0%ae/m.db",
        "/reports/..%2f..%2fetc%2fpasswd",
        "/reports/" + "a/" * 300,
        "/reports/" + "x" * 300,
    ],
)
async def test_nothing_outside_the_site_is_served(reports: str, path: str) -> None:
    """Paths out of the site, hidden files, missing pages and paths no file can have (a NUL,
    bytes that are no UTF-8, a name too long) are 404."""
    status, _, _ = await _get(reports + path)
    assert status == 404


async def test_directories_without_a_slash_redirect(reports: str) -> None:
    """/reports and a day's page without its slash redirect, so relative links resolve."""
    status, headers, _ = await _get(reports + "/reports")
    assert status == 301 and headers["Location"] == "/reports/"
    status, headers, _ = await _get(reports + "/reports/vllm-project/vllm")
    assert status == 301 and headers["Location"] == "/reports/vllm-project/vllm/"


async def test_a_daily_post_rebuilds_the_site(tmp_path: Path) -> None:
    """After a daily post the publisher rebuilds the site in the background; the post did not
    wait for it."""
    clock = Clock(NOW)
    data = sample()
    async with FakeGitHub(clock=clock) as github:
        github.add_repo(REPO, issues=data["issues"], comments=data["comments"])
        settings = Settings(
            github=GitHubSettings(api_url=github.url),
            db=str(tmp_path / "m.db"),
            redis=RedisSettings(url=None),
        )
        async with build_runtime(settings, load_config(), clock=clock) as runtime:
            options = SiteOptions(out=tmp_path / "site", repos=(REPO,), days=2, search=False)
            publisher = SitePublisher(site_builder(runtime), options)
            posted: list[str] = []

            async def post(
                sub: Subscription,
                digest: Digest,
                *,
                late: bool,
                quiet: bool,
                done: tuple[str, ...],
                part_sent: Callable[[int, str], Awaitable[None]],
            ) -> None:
                posted.append(sub.channel)

            async def nothing(index: int, message_id: str) -> None:
                return None

            stop = asyncio.Event()
            task = asyncio.create_task(publisher.run(stop))
            daily = publishing(post, publisher)
            await daily(
                subscription(),
                await sample_digest(),
                late=False,
                quiet=False,
                done=(),
                part_sent=nothing,
            )
            assert posted == ["C0000001"] and not (tmp_path / "site").exists()
            for _ in range(200):
                if publisher.builds:
                    break
                await asyncio.sleep(0.05)
            stop.set()
            await asyncio.wait_for(task, 5)
    assert publisher.builds == 1
    assert (
        tmp_path / "site" / "vllm-project" / "vllm" / "2026-01-31" / "en" / "index.html"
    ).is_file()
