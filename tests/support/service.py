"""Builders, syncs and clocks for the cache and sync-gate tests (and their worker processes)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from digest.builder import DigestRequest
from digest.i18n import Note
from digest.mirror.store import Completion, SyncResult
from digest.models import Counts, Digest, ItemRef, Paragraph, Section, Text, Window

T0 = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
REPO = "vllm-project/vllm"
DAY = Window(T0, T0 + timedelta(days=1), "Asia/Shanghai", "2026-03-10")


START = T0 + timedelta(days=2)  # where the service tests' clocks start


def request(window: Window = DAY, **changes: str) -> DigestRequest:
    """A digest request for ``window``; ``lang`` and ``config_fingerprint`` may be changed."""
    return DigestRequest(
        repo=REPO,
        window=window,
        lang=changes.get("lang", "zh"),
        writer="template",
        topics=(),
        config_fingerprint=changes.get("config_fingerprint", "cfg-1"),
    )


class CountingBuilder:
    """Builds a small digest per request and counts its builds.

    ``before`` (optional) is awaited inside each build, so a test can hold builds open;
    ``notes`` are the digest's visible degradations.
    """

    def __init__(
        self,
        before: Callable[[], Awaitable[None]] | None = None,
        fail: BaseException | None = None,
        notes: tuple[str, ...] = (),
    ) -> None:
        self.builds = 0
        self.notes = notes
        self.before = before
        self.fail = fail

    async def build(self, request: DigestRequest, synced: SyncResult | None = None) -> Digest:
        self.builds += 1
        if self.before is not None:
            await self.before()
        if self.fail is not None:
            raise self.fail
        return Digest(
            repo=request.repo,
            window=request.window,
            lang=request.lang,
            counts=Counts(self.builds, 0, 0, 0, 0),
            sections=(
                Section(
                    "summary",
                    "Summary",
                    (Paragraph((Text(f"build {self.builds}"), ItemRef(1, "https://x/1"))),),
                ),
            ),
            generated_at=T0 + timedelta(days=1, hours=1),
            synced_at=None,
            repo_url=f"https://github.com/{request.repo}",
            notes=self.notes,
        )


SYNCED = Note("sync.resets", (("when", "2026-03-11 04:21 UTC"),))  # what CountingSync says


@dataclass(frozen=True, slots=True)
class Synced:
    synced_at: datetime | None
    notes: tuple[Note, ...] = ()
    covered_from: datetime | None = None
    completion: Completion | None = None
    repo: str | None = None


class CountingSync:
    """A sync that only counts its calls (``before`` is awaited inside each).

    Like a mirror, it leaves the store complete from the window's start up to now, unless
    ``searched``: then only the window asked for is (an old window fetched by search).
    """

    def __init__(
        self,
        clock: Callable[[], datetime],
        before: Callable[[], Awaitable[None]] | None = None,
        *,
        searched: bool = False,
        completion: Completion | None = None,
        renamed_to: str | None = None,
    ) -> None:
        self.calls: list[tuple[str, Window]] = []
        self.clock = clock
        self.before = before
        self.searched = searched
        self.completion = completion
        self.renamed_to = renamed_to  # what the sync says the repository is called now

    async def ensure(self, repo: str, window: Window) -> Synced:
        self.calls.append((repo, window))
        if self.before is not None:
            await self.before()
        covered = None if self.searched else window.start
        return Synced(self.clock(), (SYNCED,), covered, self.completion, self.renamed_to)


async def until(predicate: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait until ``predicate()`` holds, polling, or fail after ``seconds``."""
    async with asyncio.timeout(seconds):
        while True:
            if predicate():
                return
            await asyncio.sleep(0.005)
