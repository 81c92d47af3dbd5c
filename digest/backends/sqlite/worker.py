"""One SQLite connection owned by one worker thread, driven from asyncio."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

_T = TypeVar("_T")


def connect(path: str) -> sqlite3.Connection:
    """A connection in autocommit mode with WAL, creating the file's parent directories."""
    uri = path.startswith("file:")
    if path != ":memory:" and not uri:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None, uri=uri, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 5000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


class SQLiteWorker:
    """Runs functions of a connection on a single thread, so the event loop never blocks.

    The connection is opened (and ``setup`` run) on first use, in the worker thread.
    """

    def __init__(self, path: str, setup: Callable[[sqlite3.Connection], None]) -> None:
        self.path = path
        self._setup = setup
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        self._conn: sqlite3.Connection | None = None
        self._closed = False

    async def run(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """``fn(connection)`` on the worker thread."""
        if self._closed:
            raise RuntimeError("the database is closed")
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._call, fn)

    def _call(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        if self._conn is None:
            conn = connect(self.path)
            try:
                self._setup(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return fn(self._conn)

    async def close(self) -> None:
        """Close the connection and stop the thread; later calls raise."""
        if self._closed:
            return
        self._closed = True
        conn, self._conn = self._conn, None
        if conn is not None:
            await asyncio.get_running_loop().run_in_executor(self._executor, conn.close)
        self._executor.shutdown(wait=False)


def write(conn: sqlite3.Connection, sql: str, rows: list[tuple[object, ...]]) -> int:
    """Run ``sql`` for every row in one immediate transaction; the number of rows changed."""
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        cursor = conn.executemany(sql, rows)
        return cursor.rowcount
