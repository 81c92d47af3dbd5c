"""Store factories: every contract test runs once per store implementation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from digest.backends.redis.mirror import RedisStore
from digest.backends.sqlite.mirror import SQLiteStore
from digest.mirror.store import Store
from tests.support.redis_server import Sandbox, sandbox


@pytest.fixture
async def redis() -> AsyncIterator[Sandbox]:
    """A client and a fresh key prefix on a real Redis server."""
    async with sandbox() as box:
        yield box


@pytest.fixture(params=["sqlite-memory", "sqlite-file", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh, empty store of each implementation."""
    if request.param == "redis":
        async with sandbox() as box:
            made: Store = RedisStore(box.client, prefix=box.prefix)
            yield made
            await made.close()
        return
    if request.param == "sqlite-memory":
        made = SQLiteStore(":memory:")
    else:
        made = SQLiteStore(str(tmp_path / "nested" / "dir" / "mirror.db"))
    yield made
    await made.close()
