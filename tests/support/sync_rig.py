"""A fake GitHub with a dataset, a client on it, a fresh SQLite store and a syncer: the rig of
the sync tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from digest.backends.sqlite.mirror import SQLiteStore
from digest.github.client import GitHubClient
from digest.mirror.sync import Syncer
from digest.models import Comment, Counts, Item, Window
from tests.fakes.github import FakeGitHub, RecordingSleep
from tests.support.clock import Clock
from tests.support.synthetic import Dataset

REPO = "vllm-project/vllm"
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
FAR = datetime(2100, 1, 1, tzinfo=UTC)


@dataclass
class Rig:
    """A fake GitHub with a dataset, a client on it, a fresh store and a syncer."""

    fake: FakeGitHub
    client: GitHubClient
    store: SQLiteStore
    syncer: Syncer
    clock: Clock
    sleep: RecordingSleep

    async def counts(self, window: Window, repo: str = REPO) -> Counts:
        """The five counts of ``window`` as the mirror of ``repo`` answers them."""
        created = await self.store.items_created(repo, window.start, window.end)
        closed = await self.store.items_closed(repo, window.start, window.end)
        merged = await self.store.items_merged(repo, window.start, window.end)
        return Counts(
            new_issues=sum(not i.is_pr for i in created),
            closed_issues=sum(not i.is_pr for i in closed),
            new_prs=sum(i.is_pr for i in created),
            merged_prs=sum(i.is_pr for i in merged),
            closed_unmerged_prs=sum(i.is_pr and i.merged_at is None for i in closed),
        )

    async def human_comments(self, window: Window) -> dict[int, int]:
        counts: dict[int, int] = {}
        for c in await self.store.comments_created(REPO, window.start, window.end):
            if not c.author_is_bot:
                counts[c.item_number] = counts.get(c.item_number, 0) + 1
        return counts

    async def snapshot(self) -> tuple[list[Item], list[Comment]]:
        """Everything mirrored, in a stable order."""
        items = await self.store.items_updated(REPO, EPOCH, FAR)
        comments = await self.store.comments_created(REPO, EPOCH, FAR)
        return sorted(items, key=lambda i: i.number), sorted(comments, key=lambda c: c.id)


RigFactory = Callable[..., Awaitable[Rig]]


@asynccontextmanager
async def rigs() -> AsyncIterator[RigFactory]:
    """Builds rigs (several per test if needed) and closes them all on exit."""
    opened: list[tuple[FakeGitHub, httpx.AsyncClient, SQLiteStore]] = []

    async def build(data: Dataset, *, token: str | None = None, **syncer_options: Any) -> Rig:
        clock = Clock(data.now)
        sleep = RecordingSleep(clock)
        fake = FakeGitHub(clock=clock)
        await fake.start()
        fake.add_repo(
            REPO,
            issues=data.issues,
            comments=data.comments,
            review_comments=data.review_comments,
        )
        http = httpx.AsyncClient(base_url=fake.url, timeout=5.0)
        store = SQLiteStore(":memory:")
        opened.append((fake, http, store))
        client = GitHubClient(http, token=token, sleep=sleep, clock=clock, jitter=lambda: 0.5)
        syncer = Syncer(client, store, clock=clock, **syncer_options)
        return Rig(fake, client, store, syncer, clock, sleep)

    try:
        yield build
    finally:
        for fake, http, store in opened:
            await store.close()
            await http.aclose()
            await fake.close()


def today(data: Dataset, k: int = 0) -> Window:
    """The ``k``-th day back of ``data`` (0: the last)."""
    return Window(*data.day(k))
