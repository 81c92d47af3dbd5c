"""One SQLite connection owned by one worker thread, driven from asyncio."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

_T = TypeVar("_T")
log = logging.getLogger(__name__)
_CORRUPT = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def is_corrupt(exc: BaseException) -> bool:
    """Whether ``exc`` says the database file is damaged or is no database at all."""
    return getattr(exc, "sqlite_errorcode", None) in _CORRUPT


def move_aside(path: str) -> Path:
    """Rename the database ``path`` (with its WAL and shared-memory files) to
    ``path.corrupt-YYYYmmddTHHMMSSZ``; the new name."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = Path(f"{path}.corrupt-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        source = Path(path + suffix)
        if source.exists():
            source.rename(Path(f"{target}{suffix}"))
    return target


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

    The connection is opened (and ``setup`` run) on first use, in the worker thread. With
    ``disposable`` (a mirror, which a sync can fill again), a file that turns out damaged or no
    database at all, on opening or later, is moved aside with one ``sqlite.corrupt_moved_aside``
    error line naming both files, and a new one takes its place; the call is then made on it.
    """

    def __init__(
        self, path: str, setup: Callable[[sqlite3.Connection], None], *, disposable: bool = False
    ) -> None:
        self.path = path
        self._setup = setup
        self._disposable = disposable and path != ":memory:" and not path.startswith("file:")
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        self._conn: sqlite3.Connection | None = None
        self._closed = False

    async def run(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """``fn(connection)`` on the worker thread."""
        if self._closed:
            raise RuntimeError("the database is closed")
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._call, fn)

    def _call(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        try:
            return fn(self._open())
        except sqlite3.DatabaseError as exc:
            if not (self._disposable and is_corrupt(exc)):
                raise
            self._replace(exc)
            return fn(self._open())

    def _open(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = connect(self.path)
            try:
                self._setup(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _replace(self, exc: sqlite3.DatabaseError) -> None:
        """Move the damaged file aside; the next call opens a new one."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        moved = move_aside(self.path)
        log.error(
            "sqlite.corrupt_moved_aside",
            extra={"path": self.path, "moved_to": str(moved), "error": str(exc)},
        )

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
