"""``/healthz`` and ``/metrics`` of the bot process, on a local HTTP port (within the limits of
:mod:`bot.listen`: headers and bodies in time, small bodies, a cap on connections)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.listen import HttpLimits, Listener, bounded_app, listen
from bot.process.metrics import Metrics

log = logging.getLogger(__name__)

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"

Report = Callable[[], Awaitable[tuple[bool, Mapping[str, Any]]]]
"""Whether the process is healthy, and what ``/healthz`` says about each component."""


def health_app(
    report: Report, metrics: Metrics, limits: HttpLimits | None = None
) -> web.Application:
    """``GET /healthz`` (200 when healthy, else 503, with the report) and ``GET /metrics``."""

    async def healthz(request: web.Request) -> web.Response:
        healthy, body = await report()
        return web.json_response(
            {"status": "ok" if healthy else "failing", **body}, status=200 if healthy else 503
        )

    async def metrics_text(request: web.Request) -> web.Response:
        body = metrics.render().encode()
        return web.Response(body=body, headers={"Content-Type": PROMETHEUS_TEXT})

    app = bounded_app(limits or HttpLimits())
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_text)
    return app


@dataclass(slots=True)
class HealthServer:
    listener: Listener

    @property
    def port(self) -> int:
        return self.listener.port

    async def stop(self) -> None:
        await self.listener.close()


async def start_health(
    app: web.Application, host: str, port: int, limits: HttpLimits | None = None
) -> HealthServer:
    """Serve ``app`` on ``host:port`` (port 0 picks a free one) within ``limits``."""
    listener = await listen(app, host, port, limits)
    log.info("serve.http_listening", extra={"host": host, "port": listener.port})
    return HealthServer(listener)
