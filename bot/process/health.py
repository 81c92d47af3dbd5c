"""``/healthz`` and ``/metrics`` of the bot process, on a local HTTP port."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.listen import listen
from bot.process.metrics import Metrics

log = logging.getLogger(__name__)

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"

Report = Callable[[], Awaitable[tuple[bool, Mapping[str, Any]]]]
"""Whether the process is healthy, and what ``/healthz`` says about each component."""


def health_app(report: Report, metrics: Metrics) -> web.Application:
    """``GET /healthz`` (200 when healthy, else 503, with the report) and ``GET /metrics``."""

    async def healthz(request: web.Request) -> web.Response:
        healthy, body = await report()
        return web.json_response(
            {"status": "ok" if healthy else "failing", **body}, status=200 if healthy else 503
        )

    async def metrics_text(request: web.Request) -> web.Response:
        body = metrics.render().encode()
        return web.Response(body=body, headers={"Content-Type": PROMETHEUS_TEXT})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_text)
    return app


@dataclass(slots=True)
class HealthServer:
    runner: web.AppRunner
    port: int

    async def stop(self) -> None:
        await self.runner.cleanup()


async def start_health(app: web.Application, host: str, port: int) -> HealthServer:
    """Serve ``app`` on ``host:port`` (port 0 picks a free one)."""
    runner, bound = await listen(app, host, port)
    log.info("serve.http_listening", extra={"host": host, "port": bound})
    return HealthServer(runner, bound)
