"""Mirrors nobody wants any more are pruned: a repository nobody follows and nobody asked for
within the access's ``asked_for`` loses its items, comments and sync state (a later request
syncs it again, from a backfill). :class:`~digest.mirror.access.GuardedSync` records each
request as it syncs. A renamed repository's mirror is wanted when its old name is (followed or
asked for by it: the old name is an alias, see :mod:`~digest.mirror.renames`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from digest.mirror.access import RepoAccess
from digest.mirror.renames import RENAMED
from digest.mirror.store import SyncState

log = logging.getLogger(__name__)


@runtime_checkable
class Prunable(Protocol):
    """A mirror that can list and drop whole repositories (both backends)."""

    async def mirrored_repos(self) -> list[str]: ...

    async def drop_repo(self, repo: str) -> None: ...

    async def get_sync_state(self, repo: str) -> SyncState: ...


async def prune(store: Prunable, access: RepoAccess, followed: Iterable[str]) -> list[str]:
    """Drop the mirror of every repository not in ``followed`` that nobody asked for lately;
    the repositories dropped. ``StateUnavailable`` passes through before anything is dropped
    on a guess."""
    keep = {name.lower() for name in followed}
    mirrored = await store.mirrored_repos()
    names: dict[str, list[str]] = {repo.lower(): [repo] for repo in mirrored}  # and its aliases
    for repo in mirrored:
        new = (await store.get_sync_state(repo)).etags.get(RENAMED)
        if new:
            names.setdefault(new.lower(), [new]).append(repo)
            names[repo.lower()].append(new)  # an alias goes with the mirror it names
    dropped: list[str] = []
    for repo in mirrored:
        if await _wanted(names[repo.lower()], keep, access):
            continue
        await store.drop_repo(repo)
        dropped.append(repo)
    if dropped:
        log.info("mirror.pruned", extra={"repos": dropped, "count": len(dropped)})
    return dropped


async def _wanted(names: list[str], keep: set[str], access: RepoAccess) -> bool:
    """Whether any of a mirror's ``names`` is followed or was asked for lately."""
    for name in names:
        if name.lower() in keep or await access.asked_recently(name):
            return True
    return False
