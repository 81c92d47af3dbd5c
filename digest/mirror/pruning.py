"""Mirrors nobody wants any more are pruned: a repository nobody follows and nobody asked for
within the access's ``asked_for`` loses its items, comments and sync state (a later request
syncs it again, from a backfill). :class:`~digest.mirror.access.GuardedSync` records each
request as it syncs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from digest.mirror.access import RepoAccess

log = logging.getLogger(__name__)


@runtime_checkable
class Prunable(Protocol):
    """A mirror that can list and drop whole repositories (both backends)."""

    async def mirrored_repos(self) -> list[str]: ...

    async def drop_repo(self, repo: str) -> None: ...


async def prune(store: Prunable, access: RepoAccess, followed: Iterable[str]) -> list[str]:
    """Drop the mirror of every repository not in ``followed`` that nobody asked for lately;
    the repositories dropped. ``StateUnavailable`` passes through before anything is dropped
    on a guess."""
    keep = {name.lower() for name in followed}
    dropped: list[str] = []
    for repo in await store.mirrored_repos():
        if repo.lower() in keep or await access.asked_recently(repo):
            continue
        await store.drop_repo(repo)
        dropped.append(repo)
    if dropped:
        log.info("mirror.pruned", extra={"repos": dropped, "count": len(dropped)})
    return dropped
