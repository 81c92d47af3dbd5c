"""What may be followed: the allow-list, whether GitHub shows a repository (and whether it is
private), the repositories that stopped answering, and when each was last asked for.

One GitHub request (``GET /repos/{owner}/{name}``) tells whether a repository exists and is
private; the answer is kept in the shared state (a day when found, an hour when not), so a
burst of commands naming one repository costs one request. A repository whose syncs answer
``NotFound`` ``lapse_after`` times in a row has *lapsed*: the background refresh leaves it and
its subscriptions say so, until GitHub shows it again. The last time anyone asked for a
repository is a key in the shared state that expires after ``asked_for``, written at most once
an hour per process, so the refresh can prune mirrors nobody wants.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from digest.errors import NotFound, RepoRefused, StateUnavailable
from digest.github.allow_list import AllowList
from digest.github.client import GitHubClient
from digest.mirror.store import Sync, SyncResult
from digest.models import Window
from digest.scope import is_owner_entry
from digest.state.base import SharedState

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RepoFacts:
    """What GitHub's repository endpoint says of one repository."""

    exists: bool
    private: bool = False


class RepoAccess:
    """Admits a repository or refuses it (:class:`~digest.errors.RepoRefused`); records the
    repositories that stopped answering and the last time each was asked for."""

    def __init__(
        self,
        github: GitHubClient,
        state: SharedState,
        allow: AllowList,
        *,
        clock: Callable[[], datetime],
        found_for: timedelta = timedelta(days=1),
        missing_for: timedelta = timedelta(hours=1),
        lapse_after: int = 3,
        asked_for: timedelta = timedelta(days=30),
    ) -> None:
        self._github = github
        self._state = state
        self.allow = allow
        self._clock = clock
        self._found_for = found_for
        self._missing_for = missing_for
        self.lapse_after = lapse_after
        self.asked_for = asked_for
        self._asked: dict[str, datetime] = {}  # repo -> when this process last recorded it

    def allowed(self, repo: str) -> bool:
        return self.allow.allows(repo)

    def check_allowed(self, repo: str) -> None:
        """Refuse ``repo`` (``not_allowed``) when it is off the allow-list."""
        if not self.allow.allows(repo):
            raise RepoRefused(repo, "not_allowed", allowed=self.allow.shown())

    async def facts(self, repo: str) -> RepoFacts:
        """Whether GitHub shows ``repo`` and whether it is private: from the shared state, else
        one request. ``RateLimited`` and ``SourceUnavailable`` pass through, uncached."""
        key = f"repo-facts:{repo.lower()}"
        cached = await self._get(key)
        if cached:  # "" is a forgotten answer (see ``recheck``)
            data = json.loads(cached)
            return RepoFacts(bool(data["exists"]), bool(data["private"]))
        try:
            row = await self._github.repository(repo)
        except NotFound:
            facts = RepoFacts(exists=False)
        else:
            facts = RepoFacts(exists=True, private=bool(row.get("private", False)))
        ttl = self._found_for if facts.exists else self._missing_for
        value = json.dumps({"exists": facts.exists, "private": facts.private})
        await self._set(key, value, ttl)
        log.info(
            "follow.checked", extra={"repo": repo, "exists": facts.exists, "private": facts.private}
        )
        return facts

    async def admit(self, repo: str) -> None:
        """Refuse ``repo`` when it is off the allow-list, missing, or private and not listed;
        a repository GitHub shows is no longer lapsed. A scope's ``owner/*`` entry is only
        checked against the allow-list: the owner's listing says whether GitHub has it, and
        each repository it brings in is checked when it syncs."""
        self.check_allowed(repo)
        if is_owner_entry(repo):
            return
        facts = await self.facts(repo)
        if not facts.exists:
            raise RepoRefused(repo, "missing")
        if facts.private and not self.allow.lists(repo):
            raise RepoRefused(repo, "private")
        await self.answered(repo)

    # -- repositories that stopped answering ----------------------------------------------

    async def misses(self, repo: str) -> int:
        """How many syncs of ``repo`` in a row answered ``NotFound``."""
        raw = await self._get(f"repo-missing:{repo.lower()}")
        return int(raw) if raw is not None and raw.isdigit() else 0

    async def lapsed(self, repo: str) -> bool:
        """Whether ``repo`` answered ``NotFound`` too often to be followed any more."""
        return await self.misses(repo) >= self.lapse_after

    async def missed(self, repo: str) -> int:
        """Record one sync of ``repo`` that answered ``NotFound``; the misses in a row."""
        count = await self.misses(repo) + 1
        await self._set(f"repo-missing:{repo.lower()}", str(count), timedelta(days=365))
        if count == self.lapse_after:
            log.warning("follow.lapsed", extra={"repo": repo, "misses": count})
        return count

    async def recheck(self, repo: str) -> None:
        """Forget a kept "missing" answer of ``repo``, so that its next check asks GitHub: each
        miss that counts towards a lapse is GitHub's own answer."""
        key = f"repo-facts:{repo.lower()}"
        cached = await self._get(key)
        if cached and not json.loads(cached)["exists"]:
            await self._set(key, "", self._missing_for)

    async def answered(self, repo: str) -> None:
        """Record that GitHub showed ``repo``: it is followed again if it had lapsed."""
        if await self.misses(repo):
            await self._set(f"repo-missing:{repo.lower()}", "0", timedelta(days=365))
            log.info("follow.recovered", extra={"repo": repo})

    # -- when each repository was last asked for ------------------------------------------

    async def asked(self, repo: str) -> None:
        """Record that someone asked for ``repo`` now (at most one write an hour)."""
        now = self._clock()
        name = repo.lower()
        last = self._asked.get(name)
        if last is not None and now - last < timedelta(hours=1):
            return
        self._asked[name] = now
        await self._set(f"repo-asked:{name}", now.isoformat(), self.asked_for)

    async def asked_recently(self, repo: str) -> bool:
        """Whether anyone asked for ``repo`` within ``asked_for``; ``StateUnavailable`` passes
        through (nothing is pruned on a guess)."""
        return await self._state.get(f"repo-asked:{repo.lower()}") is not None

    # -- the shared state, degraded -------------------------------------------------------

    async def _get(self, key: str) -> str | None:
        try:
            return await self._state.get(key)
        except StateUnavailable:
            return None

    async def _set(self, key: str, value: str, ttl: timedelta) -> None:
        try:
            await self._state.set(key, value, ttl)
        except StateUnavailable:
            log.info("follow.unrecorded", extra={"key": key.split(":", 1)[0]})


class GuardedSync:
    """A :class:`~digest.mirror.store.Sync` that admits ``repo`` (unless ``trusted``: the
    configuration's own) and records that it was asked for, before syncing: a repository off
    the allow-list, missing or private and not listed is never synced (``RepoRefused``)."""

    def __init__(self, sync: Sync, access: RepoAccess, *, trusted: Iterable[str] = ()) -> None:
        self._sync = sync
        self._access = access
        self._trusted = frozenset(name.lower() for name in trusted)

    async def ensure(self, repo: str, window: Window) -> SyncResult:
        if repo.lower() not in self._trusted:
            await self._access.admit(repo)
        await self._access.asked(repo)
        return await self._sync.ensure(repo, window)
