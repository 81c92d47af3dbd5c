"""What SQLite's planner does with a query: indexes used, scans and sorts avoided."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path


def query_plan(path: Path, sql: str, args: Sequence[object]) -> list[str]:
    """The ``EXPLAIN QUERY PLAN`` lines of ``sql`` in the database file at ``path`` (read-only)."""
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
        return [str(row[-1]) for row in conn.execute("EXPLAIN QUERY PLAN " + sql, args)]
