"""The embedded store: one SQLite file (or ``:memory:``), for the CLI and a single bot process.

Every call runs on one dedicated worker thread that owns the connection, so the event loop
never blocks on disk and ``:memory:`` databases keep a single connection. Moments are stored
as integer microseconds since the epoch (UTC); window queries use one index per time column.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

from digest.backends.sqlite.worker import SQLiteWorker, write
from digest.mirror.item_windows import Column, ItemWindows
from digest.mirror.profiles import Profile
from digest.mirror.rows import (
    from_micros,
    opt_micros,
    opt_moment,
    to_micros,
)
from digest.mirror.store import SyncState
from digest.models import Comment, CommentKind, Item, ItemKind, ItemState

SCHEMA_VERSION = 6

_T = TypeVar("_T")
_CHUNK = 500  # bound parameters per ``IN (...)`` query

_ITEM_COLUMNS = (
    "repo, number, kind, title, author, author_is_bot, labels, state, state_reason, "
    "created_at, updated_at, closed_at, merged_at, url, body_excerpt, comments_total, "
    "draft, author_association, fixes"
)
_COMMENT_COLUMNS = (
    "repo, id, item_number, author, author_is_bot, body_excerpt, created_at, updated_at, url, "
    "author_association"
)
_REVIEW_COLUMNS = f"{_COMMENT_COLUMNS}, path, in_reply_to_id"
_SYNC_COLUMNS = (
    "repo, items_cursor, comments_cursor, covered_since, synced_at, etags, "
    "review_comments_cursor, review_comments_checked"
)

_REVIEW_SCHEMA = """
CREATE TABLE IF NOT EXISTS review_comments (
    repo TEXT NOT NULL,
    id INTEGER NOT NULL,
    item_number INTEGER NOT NULL,
    author TEXT NOT NULL,
    author_is_bot INTEGER NOT NULL,
    body_excerpt TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    url TEXT NOT NULL,
    path TEXT NOT NULL,
    in_reply_to_id INTEGER,
    PRIMARY KEY (repo, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS review_comments_created ON review_comments (repo, created_at);
"""
# an item's comments (removing a deleted or transferred item): no scan of a whole history
_ITEM_COMMENT_INDEXES = """
CREATE INDEX IF NOT EXISTS comments_item ON comments (repo, item_number);
CREATE INDEX IF NOT EXISTS review_comments_item ON review_comments (repo, item_number);
"""
# GitHub profiles of people the reports named (login lower-cased), with when they were fetched.
_PROFILES_SCHEMA = """
CREATE TABLE IF NOT EXISTS profiles (
    login TEXT PRIMARY KEY,
    shown TEXT NOT NULL,
    company TEXT NOT NULL,
    fetched_at INTEGER NOT NULL
);
"""
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS items (
    repo TEXT NOT NULL,
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    author TEXT NOT NULL,
    author_is_bot INTEGER NOT NULL,
    labels TEXT NOT NULL,
    state TEXT NOT NULL,
    state_reason TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    closed_at INTEGER,
    merged_at INTEGER,
    url TEXT NOT NULL,
    body_excerpt TEXT NOT NULL,
    comments_total INTEGER NOT NULL,
    draft INTEGER NOT NULL,
    author_association TEXT NOT NULL,
    fixes TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (repo, number)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_created ON items (repo, created_at);
CREATE INDEX IF NOT EXISTS items_closed ON items (repo, closed_at);
CREATE INDEX IF NOT EXISTS items_merged ON items (repo, merged_at);
CREATE INDEX IF NOT EXISTS items_updated ON items (repo, updated_at);
CREATE TABLE IF NOT EXISTS comments (
    repo TEXT NOT NULL,
    id INTEGER NOT NULL,
    item_number INTEGER NOT NULL,
    author TEXT NOT NULL,
    author_is_bot INTEGER NOT NULL,
    body_excerpt TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    url TEXT NOT NULL,
    author_association TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (repo, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS comments_created ON comments (repo, created_at);
CREATE TABLE IF NOT EXISTS sync_state (
    repo TEXT PRIMARY KEY,
    items_cursor INTEGER,
    comments_cursor INTEGER,
    covered_since INTEGER,
    synced_at INTEGER,
    etags TEXT NOT NULL,
    review_comments_cursor INTEGER,
    review_comments_checked INTEGER
);
{_REVIEW_SCHEMA}
ALTER TABLE review_comments ADD COLUMN author_association TEXT NOT NULL DEFAULT '';
{_ITEM_COMMENT_INDEXES}
{_PROFILES_SCHEMA}
PRAGMA user_version = {SCHEMA_VERSION};
"""
# From each older schema version to the next.
_MIGRATIONS = {
    1: _REVIEW_SCHEMA
    + """
ALTER TABLE sync_state ADD COLUMN review_comments_cursor INTEGER;
ALTER TABLE sync_state ADD COLUMN review_comments_checked INTEGER;
PRAGMA user_version = 2;
""",
    2: """
ALTER TABLE items ADD COLUMN fixes TEXT NOT NULL DEFAULT '[]';
PRAGMA user_version = 3;
""",
    3: """
ALTER TABLE comments ADD COLUMN author_association TEXT NOT NULL DEFAULT '';
ALTER TABLE review_comments ADD COLUMN author_association TEXT NOT NULL DEFAULT '';
PRAGMA user_version = 4;
""",
    4: _ITEM_COMMENT_INDEXES + "PRAGMA user_version = 5;\n",
    5: _PROFILES_SCHEMA + "PRAGMA user_version = 6;\n",
}


def _item_row(item: Item) -> tuple[Any, ...]:
    return (
        item.repo,
        item.number,
        item.kind.value,
        item.title,
        item.author,
        int(item.author_is_bot),
        json.dumps(list(item.labels)),
        item.state.value,
        item.state_reason,
        to_micros(item.created_at),
        to_micros(item.updated_at),
        opt_micros(item.closed_at),
        opt_micros(item.merged_at),
        item.url,
        item.body_excerpt,
        item.comments_total,
        int(item.draft),
        item.author_association,
        json.dumps(list(item.fixes)),
    )


_KINDS = {kind.value: kind for kind in ItemKind}
_STATES = {state.value: state for state in ItemState}


@lru_cache(maxsize=4096)
def _ints_or_strs(text: str) -> tuple[Any, ...]:
    """A stored JSON list (labels, fixes) as a tuple; label sets repeat, so each is read once."""
    return () if text == "[]" else tuple(json.loads(text))


def _item(row: Sequence[Any]) -> Item:
    """The item of one row of ``_ITEM_COLUMNS`` (fields in ``Item`` order: a positional call
    is the cheaper one, and a 30-day window reads ten thousand rows)."""
    (
        repo,
        number,
        kind,
        title,
        author,
        author_is_bot,
        labels,
        state,
        state_reason,
        created_at,
        updated_at,
        closed_at,
        merged_at,
        url,
        body_excerpt,
        comments_total,
        draft,
        author_association,
        fixes,
    ) = row
    return Item(
        repo,
        number,
        _KINDS.get(kind) or ItemKind(kind),
        title,
        author,
        bool(author_is_bot),
        _ints_or_strs(labels),
        _STATES.get(state) or ItemState(state),
        state_reason,
        from_micros(created_at),
        from_micros(updated_at),
        None if closed_at is None else from_micros(closed_at),
        None if merged_at is None else from_micros(merged_at),
        url,
        body_excerpt,
        comments_total,
        bool(draft),
        author_association,
        _ints_or_strs(fixes) if fixes else (),
    )


def _comment_row(comment: Comment) -> tuple[Any, ...]:
    return (
        comment.repo,
        comment.id,
        comment.item_number,
        comment.author,
        int(comment.author_is_bot),
        comment.body_excerpt,
        to_micros(comment.created_at),
        to_micros(comment.updated_at),
        comment.url,
        comment.author_association,
    )


def _review_row(comment: Comment) -> tuple[Any, ...]:
    return (*_comment_row(comment), comment.path, comment.in_reply_to_id)


def _comment(row: Sequence[Any], kind: CommentKind = CommentKind.CONVERSATION) -> Comment:
    """The comment of one row of ``_COMMENT_COLUMNS`` (or ``_REVIEW_COLUMNS``)."""
    repo, comment_id, number, author, author_is_bot, body, created_at, updated_at, url = row[:9]
    association = row[9] or ""
    path, reply_to = (row[10] or "", row[11]) if kind is CommentKind.REVIEW else ("", None)
    return Comment(  # positional, in field order, as for items
        repo,
        comment_id,
        number,
        author,
        bool(author_is_bot),
        body,
        from_micros(created_at),
        from_micros(updated_at),
        url,
        kind,
        path,
        reply_to,
        association,
    )


def _review(row: Sequence[Any]) -> Comment:
    return _comment(row, CommentKind.REVIEW)


def _tuples(conn: sqlite3.Connection, sql: str, args: Sequence[Any]) -> sqlite3.Cursor:
    """The rows of ``sql`` as plain tuples (cheaper to unpack than ``sqlite3.Row``)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, args)


def _placeholders(count: int) -> str:
    return ", ".join("?" * count)


# The SQL of each window query; tests read their plans with EXPLAIN QUERY PLAN.
WINDOW_QUERIES: dict[str, str] = {
    column: f"SELECT {_ITEM_COLUMNS} FROM items WHERE "
    f"repo = ? AND {column} >= ? AND {column} < ? ORDER BY {column}, number"
    for column in ("created_at", "closed_at", "merged_at", "updated_at")
}
WINDOW_QUERIES["comments"] = (
    f"SELECT {_COMMENT_COLUMNS} FROM comments "
    "WHERE repo = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, id"
)
WINDOW_QUERIES["review_comments"] = (
    f"SELECT {_REVIEW_COLUMNS} FROM review_comments "
    "WHERE repo = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, id"
)


class SQLiteStore(ItemWindows):
    """A :class:`~digest.mirror.store.Store` in one SQLite database file (or ``":memory:"``).

    A damaged file is moved aside and a new mirror started, which the next sync fills again
    (``SQLiteWorker``'s ``disposable``): a corrupt mirror costs a backfill, not an error.
    """

    def __init__(self, path: str) -> None:
        self._db = SQLiteWorker(path, self._setup, disposable=True)

    async def _run(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        return await self._db.run(fn)

    def _setup(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self._db.path} has store schema {version}; this version knows {SCHEMA_VERSION}"
            )
        if version == 0:
            conn.executescript(_SCHEMA)
            return
        while version < SCHEMA_VERSION:
            conn.executescript(_MIGRATIONS[version])
            version += 1

    # -- writes ---------------------------------------------------------------------------

    async def upsert_items(self, items: Sequence[Item]) -> None:
        rows = [_item_row(item) for item in items]
        if rows:
            sql = f"INSERT OR REPLACE INTO items ({_ITEM_COLUMNS}) VALUES ({_placeholders(19)})"
            await self._run(lambda conn: write(conn, sql, rows))

    async def upsert_comments(self, comments: Sequence[Comment]) -> None:
        rows = [_comment_row(c) for c in comments if not c.is_review]
        reviews = [_review_row(c) for c in comments if c.is_review]
        if rows:
            sql = (
                f"INSERT OR REPLACE INTO comments ({_COMMENT_COLUMNS}) VALUES ({_placeholders(10)})"
            )
            await self._run(lambda conn: write(conn, sql, rows))
        if reviews:
            sql = (
                f"INSERT OR REPLACE INTO review_comments ({_REVIEW_COLUMNS}) "
                f"VALUES ({_placeholders(12)})"
            )
            await self._run(lambda conn: write(conn, sql, reviews))

    async def delete_items(self, repo: str, numbers: Sequence[int]) -> None:
        wanted = list(dict.fromkeys(numbers))

        def delete(conn: sqlite3.Connection) -> None:
            with conn:
                for i in range(0, len(wanted), _CHUNK):
                    chunk = wanted[i : i + _CHUNK]
                    marks = _placeholders(len(chunk))
                    conn.execute(
                        f"DELETE FROM items WHERE repo = ? AND number IN ({marks})", (repo, *chunk)
                    )
                    for table in ("comments", "review_comments"):
                        conn.execute(
                            f"DELETE FROM {table} WHERE repo = ? AND item_number IN ({marks})",
                            (repo, *chunk),
                        )

        if wanted:
            await self._run(delete)

    # -- whole repositories ---------------------------------------------------------------

    async def mirrored_repos(self) -> list[str]:
        """Every repository the mirror holds anything of, by name."""

        def query(conn: sqlite3.Connection) -> list[str]:
            tables = ("sync_state", "items", "comments", "review_comments")
            sql = " UNION ".join(f"SELECT DISTINCT repo FROM {table}" for table in tables)
            return sorted(str(row[0]) for row in conn.execute(sql))

        return await self._run(query)

    async def analyze(self) -> None:
        """Refresh the planner's statistics (``ANALYZE``): after a large backfill, so that the
        window queries keep their (repo, time) indexes at full-history size."""

        def run(conn: sqlite3.Connection) -> None:
            conn.execute("ANALYZE")
            conn.execute("PRAGMA optimize")

        await self._run(run)

    async def rename_repo(self, old: str, new: str) -> bool:
        """Move the mirror of ``old`` (rows, links and sync state) to ``new``, a repository
        renamed on GitHub; ``False`` (nothing moved) when ``new`` has a mirror already."""

        def move(conn: sqlite3.Connection) -> bool:
            with conn:
                for table in ("sync_state", "items", "comments", "review_comments"):
                    if conn.execute(f"SELECT 1 FROM {table} WHERE repo = ?", (new,)).fetchone():
                        return False
                links = (f"/{old}/", f"/{new}/")
                for table in ("items", "comments", "review_comments"):
                    conn.execute(
                        f"UPDATE {table} SET repo = ?, url = replace(url, ?, ?) WHERE repo = ?",
                        (new, *links, old),
                    )
                conn.execute("UPDATE sync_state SET repo = ? WHERE repo = ?", (new, old))
            return True

        return await self._run(move)

    async def drop_repo(self, repo: str) -> None:
        """Remove every item, comment and the sync state of ``repo``."""

        def delete(conn: sqlite3.Connection) -> None:
            with conn:
                for table in ("items", "comments", "review_comments", "sync_state"):
                    conn.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))

        await self._run(delete)

    # -- window queries -------------------------------------------------------------------

    async def _items_between(
        self, column: Column, repo: str, start: datetime, end: datetime
    ) -> list[Item]:
        args = (repo, to_micros(start), to_micros(end))
        sql = WINDOW_QUERIES[column]
        return await self._run(lambda conn: [_item(r) for r in _tuples(conn, sql, args)])

    async def comments_created(self, repo: str, start: datetime, end: datetime) -> list[Comment]:
        """Conversation and review comments created in ``[start, end)``, oldest first."""
        args = (repo, to_micros(start), to_micros(end))

        def query(conn: sqlite3.Connection) -> list[Comment]:
            found = [_comment(r) for r in _tuples(conn, WINDOW_QUERIES["comments"], args)]
            found += [_review(r) for r in _tuples(conn, WINDOW_QUERIES["review_comments"], args)]
            return sorted(found, key=lambda c: (c.created_at, c.id))

        return await self._run(query)

    async def items_by_number(self, repo: str, numbers: Sequence[int]) -> list[Item]:
        """The mirrored items among ``numbers``, in the order asked, unknown numbers skipped."""
        wanted = list(dict.fromkeys(numbers))

        def query(conn: sqlite3.Connection) -> list[Item]:
            found: dict[int, Item] = {}
            for i in range(0, len(wanted), _CHUNK):
                chunk = wanted[i : i + _CHUNK]
                sql = (
                    f"SELECT {_ITEM_COLUMNS} FROM items "
                    f"WHERE repo = ? AND number IN ({_placeholders(len(chunk))})"
                )
                for row in _tuples(conn, sql, (repo, *chunk)):
                    item = _item(row)
                    found[item.number] = item
            return [found[n] for n in wanted if n in found]

        return await self._run(query) if wanted else []

    # -- sync state -----------------------------------------------------------------------

    async def get_sync_state(self, repo: str) -> SyncState:
        def query(conn: sqlite3.Connection) -> SyncState:
            row = conn.execute("SELECT * FROM sync_state WHERE repo = ?", (repo,)).fetchone()
            if row is None:
                return SyncState()
            return SyncState(
                items_cursor=opt_moment(row["items_cursor"]),
                comments_cursor=opt_moment(row["comments_cursor"]),
                covered_since=opt_moment(row["covered_since"]),
                synced_at=opt_moment(row["synced_at"]),
                etags=dict(json.loads(row["etags"])),
                review_comments_cursor=opt_moment(row["review_comments_cursor"]),
                review_comments_checked=opt_moment(row["review_comments_checked"]),
            )

        return await self._run(query)

    async def set_sync_state(self, repo: str, state: SyncState) -> None:
        row = (
            repo,
            opt_micros(state.items_cursor),
            opt_micros(state.comments_cursor),
            opt_micros(state.covered_since),
            opt_micros(state.synced_at),
            json.dumps(state.etags, sort_keys=True),
            opt_micros(state.review_comments_cursor),
            opt_micros(state.review_comments_checked),
        )
        sql = f"INSERT OR REPLACE INTO sync_state ({_SYNC_COLUMNS}) VALUES ({_placeholders(8)})"
        await self._run(lambda conn: write(conn, sql, [row]))

    # -- profiles -------------------------------------------------------------------------

    async def profiles(self, logins: Sequence[str]) -> dict[str, Profile]:
        wanted = sorted({login.lower() for login in logins})

        def query(conn: sqlite3.Connection) -> dict[str, Profile]:
            found: dict[str, Profile] = {}
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                sql = (
                    "SELECT login, shown, company, fetched_at FROM profiles "
                    f"WHERE login IN ({_placeholders(len(chunk))})"
                )
                for row in conn.execute(sql, chunk):
                    found[row[0]] = Profile(row[1], row[2], from_micros(row[3]))
            return found

        return await self._run(query) if wanted else {}

    async def put_profiles(self, profiles: Sequence[Profile]) -> None:
        rows: list[tuple[object, ...]] = [
            (p.login.lower(), p.login, p.company, to_micros(p.fetched_at)) for p in profiles
        ]
        sql = "INSERT OR REPLACE INTO profiles (login, shown, company, fetched_at) VALUES "
        sql += "(?, ?, ?, ?)"
        if rows:
            await self._run(lambda conn: write(conn, sql, rows))

    async def close(self) -> None:
        """Close the connection and stop the worker thread; later calls raise."""
        await self._db.close()
