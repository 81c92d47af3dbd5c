"""SQLite specifics: indexes, files, WAL, schema versions."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from datetime import datetime
from pathlib import Path

import pytest

from digest.backends.sqlite.mirror import SCHEMA_VERSION, WINDOW_QUERIES, SQLiteStore
from digest.mirror.rows import to_micros
from digest.mirror.store import SyncState
from tests.support.query_plan import query_plan
from tests.support.store_samples import REPO, T0, at, comment, item, review_comment

INDEX_OF = {
    "created_at": "items_created",
    "closed_at": "items_closed",
    "merged_at": "items_merged",
    "updated_at": "items_updated",
    "comments": "comments_created",
    "review_comments": "review_comments_created",
}


@pytest.mark.parametrize("query", sorted(WINDOW_QUERIES))
async def test_window_queries_use_their_index(query: str, tmp_path: Path) -> None:
    """Each window query searches its (repo, time) index and never scans or sorts."""
    store = SQLiteStore(str(tmp_path / "m.db"))
    await store.upsert_items([item(n, created_at=at(n)) for n in range(50)])
    await store.upsert_comments([comment(n, created_at=at(n)) for n in range(50)])
    await store.upsert_comments([review_comment(n, created_at=at(n)) for n in range(50)])
    plan = " | ".join(query_plan(tmp_path / "m.db", WINDOW_QUERIES[query], ("r", 0, 1)))
    await store.close()
    assert f"USING INDEX {INDEX_OF[query]}" in plan, plan
    assert "SCAN" not in plan and "TEMP B-TREE" not in plan, plan


async def test_file_store_persists_across_reopen(tmp_path: Path) -> None:
    """Rows and sync state written to a file are there after reopening it."""
    path = str(tmp_path / "a" / "b" / "mirror.db")
    first = SQLiteStore(path)
    await first.upsert_items([item(1)])
    await first.set_sync_state(REPO, SyncState(synced_at=T0, etags={"issues": '"x"'}))
    await first.close()
    second = SQLiteStore(path)
    assert await second.items_by_number(REPO, [1]) == [item(1)]
    assert (await second.get_sync_state(REPO)).etags == {"issues": '"x"'}
    await second.close()


async def test_file_store_uses_wal_and_records_schema_version(tmp_path: Path) -> None:
    """A file database is in WAL mode and carries the schema version."""
    path = tmp_path / "m.db"
    store = SQLiteStore(str(path))
    await store.upsert_items([item(1)])
    await store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    """A database written by a newer version is not silently misread."""
    path = tmp_path / "m.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    store = SQLiteStore(str(path))
    with pytest.raises(RuntimeError, match="schema"):
        await store.items_by_number(REPO, [1])
    await store.close()


async def test_naive_datetimes_are_rejected() -> None:
    """A naive moment is an error, never a guess at its zone."""
    store = SQLiteStore(":memory:")
    with pytest.raises(ValueError, match="naive"):
        await store.items_created(REPO, datetime(2026, 3, 10), datetime(2026, 3, 11))
    await store.close()


async def test_closed_store_refuses_calls() -> None:
    """Calls after close raise instead of hanging."""
    store = SQLiteStore(":memory:")
    await store.close()
    await store.close()
    with pytest.raises(RuntimeError, match="closed"):
        await store.items_by_number(REPO, [1])


async def test_schema_1_database_is_migrated(tmp_path: Path) -> None:
    """A mirror written before review comments and fix links keeps its rows and gains both."""
    path = tmp_path / "m.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE items (repo TEXT NOT NULL, number INTEGER NOT NULL, kind TEXT NOT NULL,
            title TEXT NOT NULL, author TEXT NOT NULL, author_is_bot INTEGER NOT NULL,
            labels TEXT NOT NULL, state TEXT NOT NULL, state_reason TEXT,
            created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, closed_at INTEGER,
            merged_at INTEGER, url TEXT NOT NULL, body_excerpt TEXT NOT NULL,
            comments_total INTEGER NOT NULL, draft INTEGER NOT NULL,
            author_association TEXT NOT NULL, PRIMARY KEY (repo, number)) WITHOUT ROWID;
        INSERT INTO items VALUES ('vllm-project/vllm', 1, 'pr', 't', 'a', 0, '[]', 'open',
            NULL, 1, 1, NULL, NULL, 'u', '', 0, 0, '');
        CREATE TABLE comments (repo TEXT NOT NULL, id INTEGER NOT NULL,
            item_number INTEGER NOT NULL, author TEXT NOT NULL, author_is_bot INTEGER NOT NULL,
            body_excerpt TEXT NOT NULL, created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL, url TEXT NOT NULL, PRIMARY KEY (repo, id))
            WITHOUT ROWID;
        CREATE TABLE sync_state (repo TEXT PRIMARY KEY, items_cursor INTEGER,
            comments_cursor INTEGER, covered_since INTEGER, synced_at INTEGER,
            etags TEXT NOT NULL);
        INSERT INTO sync_state VALUES ('vllm-project/vllm', 5, 6, 1, 7, '{}');
        PRAGMA user_version = 1;
        """
    )
    conn.close()
    store = SQLiteStore(str(path))
    state = await store.get_sync_state(REPO)
    [old] = await store.items_by_number(REPO, [1])
    await store.upsert_comments([review_comment(3)])
    got = await store.comments_created(REPO, T0, at(1))
    await store.close()
    assert state.comments_cursor is not None and state.review_comments_cursor is None
    assert [c.id for c in got] == [3] and old.fixes == ()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    check.close()


async def test_schema_5_database_gains_the_profiles_table(tmp_path: Path) -> None:
    """A schema-5 mirror keeps its rows and can keep profiles after the migration."""
    from digest.mirror.profiles import Profile

    path = tmp_path / "m.db"
    store = SQLiteStore(str(path))
    await store.upsert_items([item(1)])
    await store.close()
    conn = sqlite3.connect(path)
    conn.executescript("DROP TABLE profiles; PRAGMA user_version = 5;")
    conn.close()
    store = SQLiteStore(str(path))
    await store.put_profiles([Profile("gshtras", "AMD", T0)])
    found = await store.profiles(["gshtras"])
    kept = await store.items_by_number(REPO, [1])
    await store.close()
    assert found["gshtras"].company == "AMD" and [i.number for i in kept] == [1]
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    check.close()


async def test_a_file_that_is_no_database_is_moved_aside_and_started_anew(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A mirror file that is garbage is renamed ``*.corrupt-…`` with one error line naming
    both files; the store answers from a new, empty mirror that a sync fills again."""
    path = tmp_path / "mirror.sqlite3"
    path.write_bytes(b"this is not a database, it is garbage " * 200)
    store = SQLiteStore(str(path))
    assert (await store.get_sync_state(REPO)).synced_at is None  # never synced: a backfill
    await store.upsert_items([item(1)])
    assert await store.items_by_number(REPO, [1]) == [item(1)]
    await store.close()
    (moved,) = list(await asyncio.to_thread(tmp_path.glob, "mirror.sqlite3.corrupt-*"))
    assert moved.read_bytes().startswith(b"this is not a database")
    (line,) = [r for r in caplog.records if r.getMessage() == "sqlite.corrupt_moved_aside"]
    assert line.levelname == "ERROR" and line.moved_to == str(moved)  # type: ignore[attr-defined]


async def test_a_mirror_damaged_after_opening_is_replaced_on_the_next_call(tmp_path: Path) -> None:
    """Pages overwritten under an open mirror: the next read moves it aside and answers from a
    new mirror instead of failing with "internal error"."""
    path = tmp_path / "mirror.sqlite3"
    store = SQLiteStore(str(path))
    await store.upsert_items([item(n) for n in range(1, 400)])
    await store.close()
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # every page but the first is garbage
    path.write_bytes(bytes(data))
    store = SQLiteStore(str(path))
    assert await store.items_by_number(REPO, [1, 2]) == []
    await store.close()
    assert list(await asyncio.to_thread(tmp_path.glob, "mirror.sqlite3.corrupt-*"))


async def test_window_queries_keep_their_index_at_full_history_size(tmp_path: Path) -> None:
    """A mirror of vLLM's size (tens of thousands of items, a hundred thousand comments over
    three years, beside a small second repository), its statistics refreshed by ``analyze``:
    each window query of one day still searches its (repo, time) index, never scans or sorts,
    and reads only that day's rows; removing an item's comments searches (repo, item)."""
    path = tmp_path / "m.db"
    store = SQLiteStore(str(path))
    hours = 3 * 365 * 24
    items = [
        item(n, created_at=at(n % hours), updated_at=at(n % hours), closed_at=at(n % hours))
        for n in range(40_000)
    ]
    await store.upsert_items(items + [item(n, repo="other/small") for n in range(200)])
    await store.upsert_comments(
        [comment(n, created_at=at((n * 7) % hours)) for n in range(100_000)]
    )
    await store.upsert_comments(
        [review_comment(n, created_at=at(n % hours)) for n in range(20_000)]
    )
    await store.analyze()
    day = (REPO, to_micros(at(hours // 2)), to_micros(at(hours // 2 + 24)))
    plans = {q: " | ".join(query_plan(path, sql, day)) for q, sql in WINDOW_QUERIES.items()}
    removal = {  # removing a deleted item's comments
        table: " | ".join(
            query_plan(
                path, f"DELETE FROM {table} WHERE repo = ? AND item_number IN (?)", (REPO, 1)
            )
        )
        for table in ("comments", "review_comments")
    }
    created = await store.items_created(REPO, at(hours // 2), at(hours // 2 + 24))
    await store.close()
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_stat1").fetchone()[0] > 0
    for query, plan in plans.items():
        assert f"USING INDEX {INDEX_OF[query]}" in plan, plan
        assert "SCAN" not in plan and "TEMP B-TREE" not in plan, plan
    assert {i.number % hours for i in created} == set(range(hours // 2, hours // 2 + 24))
    for table, plan in removal.items():
        assert f"USING COVERING INDEX {table}_item" in plan or f"USING INDEX {table}_item" in plan
        assert "SCAN" not in plan, plan
