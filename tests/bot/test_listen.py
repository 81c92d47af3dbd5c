"""The bounds of every HTTP server of ``serve``: slow heads and bodies, big bodies, many sockets."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from bot.listen import HttpLimits, Listener, bounded_app, listen

LIMITS = HttpLimits(head_s=0.5, body_s=0.5, max_body=1024, max_connections=8)


@pytest.fixture
async def server() -> AsyncIterator[Listener]:
    app = bounded_app(LIMITS)

    async def echo(request: web.Request) -> web.Response:
        return web.Response(text=f"{len(await request.read())} bytes")

    app.router.add_route("*", "/echo", echo)
    listener = await listen(app, "127.0.0.1", 0, LIMITS)
    yield listener
    await listener.close()


async def _get(listener: Listener, **kw: object) -> int:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"http://127.0.0.1:{listener.port}/echo", **kw) as response,  # type: ignore[arg-type]
    ):
        return response.status


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> float:
    """How long until the server closes the connection (reading what it sends)."""
    started = time.monotonic()
    async with asyncio.timeout(seconds):
        while await reader.read(1024):
            pass
    return time.monotonic() - started


async def test_a_request_whose_headers_never_end_is_closed(server: Listener) -> None:
    """A slowloris client trickling header lines is cut off after the head timeout, while
    others are answered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"POST /echo HTTP/1.1\r\nHost: x\r\n")

    async def trickle() -> None:
        for n in range(40):
            await asyncio.sleep(0.05)
            writer.write(f"X-Slow-{n}: y\r\n".encode())

    task = asyncio.ensure_future(trickle())
    assert await _get(server, data=b"hi") == 200
    assert await _closed_within(reader, 3.0) < 1.5
    task.cancel()
    writer.close()


async def test_a_body_that_never_ends_is_refused(server: Listener) -> None:
    """Headers in time but a body that stops short: 408 after the body timeout, then closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\nabc")
    await writer.drain()
    async with asyncio.timeout(3.0):
        line = await reader.readline()
    assert line.startswith(b"HTTP/1.1 408")
    writer.close()


async def test_a_body_over_the_cap_is_refused_unread(server: Listener) -> None:
    """A body over ``max_body`` is answered 413; one within it is read."""
    assert await _get(server, data=b"x" * 2048) == 413
    assert await _get(server, data=b"x" * 512) == 200


async def test_idle_sockets_are_capped_and_closed(server: Listener) -> None:
    """Two hundred idle sockets hold at most the cap; those over it are refused at once, the
    rest are closed after the head timeout, and the server answers again. A slot frees only
    when its idle socket times out, so while the sockets are being opened (slowly, on a busy
    machine) at most one cap's worth is admitted per head timeout."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    sockets = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(200)]
    opening = loop.time() - started
    await asyncio.sleep(0)  # let the server see them
    assert server.connections <= LIMITS.max_connections
    admitted = LIMITS.max_connections * (1 + math.ceil(opening / LIMITS.head_s))
    waits = await asyncio.gather(*(_closed_within(r, 3.0) for r, _ in sockets))
    assert sum(w < 0.2 for w in waits) >= 200 - admitted
    assert max(waits) < 1.5
    for _, writer in sockets:
        writer.close()
    assert await _get(server, data=b"hi") == 200
    assert server.guard.refused >= 200 - admitted
