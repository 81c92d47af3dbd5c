"""Serving an aiohttp application on a TCP port, shared by the health and Slack HTTP servers.

Every server of ``serve`` faces whatever can reach its port, so each is bounded
(:class:`HttpLimits`): a request must send its line and headers within ``head_s`` of the
connection opening (or of the previous response), and its body within ``body_s``; a body over
``max_body`` bytes is refused with 413 before it is read whole; at most ``max_connections`` are
open at once, and one more is closed as soon as it opens. A slowloris client, a flood of idle
sockets or a huge POST costs the process a bounded number of sockets and bytes, never its
event loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MAX_BODY = 64 * 1024  # what /healthz, /metrics and /reports/ accept: they take no body
_REFUSED = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """What one HTTP server of the process accepts."""

    head_s: float = 10.0  # request line and headers, from the connection or the last response
    body_s: float = 10.0  # the whole body, once the headers are in
    max_body: int = MAX_BODY
    max_connections: int = 64


class _Refuse(asyncio.Protocol):
    """A connection over the cap: told 503 and closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, asyncio.WriteTransport):
            transport.write(_REFUSED)
        transport.close()


class _Guard:
    """The protocol factory of a listening socket: the server's own handler per connection, up
    to the cap, each closed unless its first request's head arrives in time."""

    def __init__(
        self, server: web.Server, limits: HttpLimits, waiting: set[web.RequestHandler]
    ) -> None:
        self._server = server
        self._limits = limits
        self._loop = asyncio.get_running_loop()
        self.waiting = waiting  # connections whose first request has not begun yet
        self.refused = 0

    def __call__(self) -> asyncio.Protocol:
        if len(self._server.connections) >= self._limits.max_connections:
            self.refused += 1
            if self.refused == 1 or self.refused % 1000 == 0:
                log.warning(
                    "http.connections_refused",
                    extra={"limit": self._limits.max_connections, "refused": self.refused},
                )
            return _Refuse()
        handler = self._server()
        self.waiting.add(handler)
        self._loop.call_later(self._limits.head_s, self._expire, handler)
        return handler

    def _expire(self, handler: web.RequestHandler) -> None:
        if handler in self.waiting:
            self.waiting.discard(handler)
            if handler.transport is not None:
                handler.force_close()  # its first request's head never came in whole


def _bounded(
    waiting: set[web.RequestHandler], limits: HttpLimits
) -> Callable[..., Awaitable[web.StreamResponse]]:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if isinstance(request.protocol, web.RequestHandler):
            waiting.discard(request.protocol)
        if request.body_exists:
            try:
                async with asyncio.timeout(limits.body_s):
                    await request.read()  # kept by the request: handlers read it from memory
            except TimeoutError:
                raise web.HTTPRequestTimeout() from None
        return await handler(request)

    return middleware


@dataclass(slots=True)
class Listener:
    """A running server: its port, and how to stop it."""

    runner: web.AppRunner
    server: asyncio.AbstractServer
    port: int
    guard: _Guard

    @property
    def connections(self) -> int:
        """How many connections are open now."""
        served = self.runner.server
        return len(served.connections) if served is not None else 0

    async def close(self) -> None:
        """Stop listening, then close every connection."""
        self.server.close()
        await self.server.wait_closed()
        await self.runner.cleanup()


def bounded_app(limits: HttpLimits) -> web.Application:
    """An empty application whose bodies are capped at ``limits.max_body`` bytes."""
    return web.Application(client_max_size=limits.max_body)


async def listen(
    app: web.Application, host: str, port: int, limits: HttpLimits | None = None
) -> Listener:
    """Serve ``app`` on ``host:port`` (port 0 picks a free one) within ``limits``.

    ``app`` should come from :func:`bounded_app` with the same limits, so that its body cap
    is theirs; the time limits and the connection cap are added here.
    """
    limits = limits or HttpLimits()
    waiting: set[web.RequestHandler] = set()
    app.middlewares.insert(0, _bounded(waiting, limits))
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=limits.head_s)
    await runner.setup()
    served = runner.server
    assert served is not None  # set up above
    guard = _Guard(served, limits, waiting)
    server = await asyncio.get_running_loop().create_server(guard, host, port)
    bound = port
    for sock in server.sockets:
        bound = int(sock.getsockname()[1])
        break
    return Listener(runner, server, bound, guard)
