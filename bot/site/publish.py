"""``serve`` publishes the report website: a rebuild after each daily post, and the files.

Rebuilds run one at a time in the background, so a post never waits for the site; requests
that arrive during a build are folded into one more build. The directory is served at
``/reports/`` on the bot's HTTP port, unless ``VLLM_REPORT_SITE_DIR`` says an external web
server serves it.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

from bot.site.build import SiteBuilder, SiteOptions
from digest.errors import DigestError
from digest.models import Digest
from digest.schedule.scheduler import PartFn, PostFn
from digest.schedule.subscription import Subscription

log = logging.getLogger(__name__)

PREFIX = "/reports/"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".xml": "application/atom+xml; charset=utf-8",
    ".svg": "image/svg+xml",
    ".wasm": "application/wasm",
    ".pagefind": "application/octet-stream",
    ".pf_meta": "application/octet-stream",
    ".pf_fragment": "application/octet-stream",
    ".pf_index": "application/octet-stream",
}
_HASHED = (".pagefind", ".pf_meta", ".pf_fragment", ".pf_index")  # named by their content


class SitePublisher:
    """Rebuilds the site when asked, in the background, one build at a time."""

    def __init__(self, builder: SiteBuilder, options: SiteOptions) -> None:
        self._builder = builder
        self.options = options
        self._wanted = asyncio.Event()
        self.builds = 0
        self.failures = 0

    def request(self) -> None:
        """Ask for a rebuild (several requests during a build make one more build)."""
        self._wanted.set()

    async def build(self) -> None:
        """One build; a failure is logged and the previous site stays."""
        try:
            await self._builder.build(self.options)
            self.builds += 1
        except (DigestError, OSError) as exc:
            self.failures += 1
            log.warning(
                "site.publish_failed", extra={"error": type(exc).__name__, "reason": str(exc)}
            )

    async def run(self, stop: asyncio.Event) -> None:
        """Build whenever asked, until ``stop`` is set."""
        stopping = asyncio.create_task(stop.wait())
        try:
            while not stop.is_set():
                wanted = asyncio.create_task(self._wanted.wait())
                await asyncio.wait({wanted, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stop.is_set():
                    wanted.cancel()
                    break
                self._wanted.clear()
                await self.build()
        finally:
            stopping.cancel()


class _PostThenPublish:
    """The scheduler's daily post, followed by a request to rebuild the site."""

    def __init__(self, post: PostFn, publisher: SitePublisher) -> None:
        self._post = post
        self._publisher = publisher

    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        await self._post(
            subscription, digest, late=late, quiet=quiet, done=done, part_sent=part_sent
        )
        self._publisher.request()


def publishing(post: PostFn, publisher: SitePublisher) -> PostFn:
    """``post`` (the scheduler's daily post), then a rebuild of the site in the background."""
    return _PostThenPublish(post, publisher)


def _content_type(path: Path) -> str:
    return (
        _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    )


def _locate(root: Path, tail: str) -> Path | None:
    """The file ``tail`` names under ``root`` (a directory's index.html); ``None`` outside it,
    for hidden files (the build's manifest), for what does not exist and for what no file can
    be called."""
    if "\x00" in tail or "\ufffd" in tail:  # a NUL, or bytes that decoded to no character
        return None
    try:
        base = root.resolve()
        target = (base / tail).resolve()
        if not target.is_relative_to(base) or any(p.startswith(".") for p in Path(tail).parts):
            return None
        if target.is_dir():
            target = target / "index.html"
        return target if target.is_file() else None
    except (OSError, ValueError):  # a name too long, or one the file system cannot hold
        return None


def site_handler(root: Path) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """An aiohttp handler serving the site under ``root`` (directories by their index.html)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        tail = request.match_info.get("tail", "")
        target = await asyncio.to_thread(_locate, root, tail)
        if target is None:
            raise web.HTTPNotFound()
        if target.name == "index.html" and tail and not tail.endswith(("/", ".html")):
            raise web.HTTPMovedPermanently(f"{request.path}/")
        cache = "public, max-age=86400" if target.suffix in _HASHED else "no-cache"
        headers = {
            "Content-Type": _content_type(target),
            "Cache-Control": cache,
            "X-Content-Type-Options": "nosniff",
        }
        return web.FileResponse(target, headers=headers)

    return handle


def add_site_routes(app: web.Application, root: Path) -> None:
    """Serve the site under ``root`` at ``/reports/``."""
    handler = site_handler(root)

    async def to_slash(request: web.Request) -> web.StreamResponse:
        raise web.HTTPMovedPermanently(PREFIX)

    app.router.add_get(PREFIX.rstrip("/"), to_slash)
    app.router.add_get(PREFIX + "{tail:.*}", handler)
