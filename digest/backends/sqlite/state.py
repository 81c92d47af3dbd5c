"""Shared state in SQLite, for one bot process or the command line.

A file keeps claims, "posted" markers and subscriptions across restarts (and serialises
claims between processes on one host); ``":memory:"`` is in-process only. Expiry follows the
injected clock.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from digest.backends.sqlite.worker import SQLiteWorker, write
from digest.mirror.rows import to_micros
from digest.state.base import SubscriptionDoc, bucket_take, new_token, ttl_ms

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS state_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS state_values (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS state_values_expiry ON state_values (expires_at);
CREATE TABLE IF NOT EXISTS state_buckets (
    key TEXT PRIMARY KEY,
    tokens REAL NOT NULL,
    at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS state_buckets_expiry ON state_buckets (expires_at);
CREATE TABLE IF NOT EXISTS state_subscriptions (
    platform TEXT NOT NULL,
    channel TEXT NOT NULL,
    key TEXT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (platform, channel, key)
) WITHOUT ROWID;
"""


class SQLiteState:
    """A :class:`~digest.state.base.SharedState` in one SQLite file (or ``":memory:"``)."""

    def __init__(self, path: str, *, clock: Callable[[], datetime]) -> None:
        self._db = SQLiteWorker(path, _setup)
        self._clock = clock

    def _now(self) -> int:
        return to_micros(self._clock())

    def _expiry(self, ttl: timedelta) -> int:
        return self._now() + ttl_ms(ttl) * 1000

    async def get(self, key: str) -> str | None:
        now = self._now()

        def query(conn: sqlite3.Connection) -> str | None:
            row = conn.execute(
                "SELECT value FROM state_values WHERE key = ? AND expires_at > ?", (key, now)
            ).fetchone()
            return None if row is None else str(row[0])

        return await self._db.run(query)

    async def set(self, key: str, value: str, ttl: timedelta) -> None:
        row = (key, value, self._expiry(ttl))
        await self._db.run(
            lambda conn: write(conn, "INSERT OR REPLACE INTO state_values VALUES (?, ?, ?)", [row])
        )

    async def claim(self, key: str, ttl: timedelta) -> str | None:
        token, now, expires = new_token(), self._now(), self._expiry(ttl)
        sql = (
            "INSERT INTO state_values VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
            "value = excluded.value, expires_at = excluded.expires_at "
            "WHERE state_values.expires_at <= ?"
        )

        def take(conn: sqlite3.Connection) -> bool:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("DELETE FROM state_values WHERE expires_at <= ?", (now,))
                return conn.execute(sql, (key, token, expires, now)).rowcount == 1

        return token if await self._db.run(take) else None

    async def renew(self, key: str, token: str, ttl: timedelta) -> bool:
        row = (self._expiry(ttl), key, token, self._now())
        sql = (
            "UPDATE state_values SET expires_at = ? WHERE key = ? AND value = ? AND expires_at > ?"
        )
        return await self._db.run(lambda conn: write(conn, sql, [row]) == 1)

    async def release(self, key: str, token: str) -> bool:
        row = (key, token, self._now())
        sql = "DELETE FROM state_values WHERE key = ? AND value = ? AND expires_at > ?"
        return await self._db.run(lambda conn: write(conn, sql, [row]) == 1)

    async def take(self, key: str, capacity: int, period: timedelta) -> timedelta | None:
        now_ms, period_ms = self._now() // 1000, ttl_ms(period)

        def take(conn: sqlite3.Connection) -> int:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("DELETE FROM state_buckets WHERE expires_at <= ?", (now_ms,))
                row = conn.execute(
                    "SELECT tokens, at FROM state_buckets WHERE key = ?", (key,)
                ).fetchone()
                tokens, at = (None, None) if row is None else (float(row[0]), int(row[1]))
                left, wait = bucket_take(tokens, at, now_ms, capacity, period_ms)
                if wait == 0:
                    conn.execute(
                        "INSERT OR REPLACE INTO state_buckets VALUES (?, ?, ?, ?)",
                        (key, left, now_ms, now_ms + period_ms),
                    )
                return wait

        wait = await self._db.run(take)
        return timedelta(milliseconds=wait) if wait > 0 else None

    async def put_subscription(
        self, platform: str, channel: str, key: str, doc: Mapping[str, Any]
    ) -> None:
        row = (platform, channel, key, json.dumps(dict(doc), ensure_ascii=False, sort_keys=True))
        sql = "INSERT OR REPLACE INTO state_subscriptions VALUES (?, ?, ?, ?)"
        await self._db.run(lambda conn: write(conn, sql, [row]))

    async def delete_subscription(self, platform: str, channel: str, key: str) -> bool:
        row = (platform, channel, key)
        sql = "DELETE FROM state_subscriptions WHERE platform = ? AND channel = ? AND key = ?"
        return await self._db.run(lambda conn: write(conn, sql, [row]) == 1)

    async def subscriptions(
        self, platform: str | None = None, channel: str | None = None
    ) -> list[SubscriptionDoc]:
        sql = (
            "SELECT platform, channel, key, doc FROM state_subscriptions "
            "WHERE (?1 IS NULL OR platform = ?1) AND (?2 IS NULL OR channel = ?2) "
            "ORDER BY platform, channel, key"
        )

        def query(conn: sqlite3.Connection) -> list[SubscriptionDoc]:
            return [
                SubscriptionDoc(r[0], r[1], r[2], json.loads(r[3]))
                for r in conn.execute(sql, (platform, channel))
            ]

        return await self._db.run(query)

    async def close(self) -> None:
        """Close the database; later calls raise."""
        await self._db.close()


def _setup(conn: sqlite3.Connection) -> None:
    conn.executescript(_SCHEMA)
    row = conn.execute("SELECT version FROM state_schema").fetchone()
    if row is None:
        conn.execute("INSERT INTO state_schema VALUES (?)", (SCHEMA_VERSION,))
    elif row[0] > SCHEMA_VERSION:
        raise RuntimeError(f"state schema {row[0]} is newer than {SCHEMA_VERSION}")
