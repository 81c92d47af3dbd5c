"""Serving an aiohttp application on a TCP port, shared by the health and Slack HTTP servers."""

from __future__ import annotations

from aiohttp import web


async def listen(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve ``app`` on ``host:port`` (port 0 picks a free one); its runner and the bound port.

    ``runner.cleanup()`` stops it.
    """
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return runner, int(address[1])
    return runner, port
