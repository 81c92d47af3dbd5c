"""GitHub profiles of the people a report names: their ``company`` field, for affiliation.

A profile is fetched (``GET /users/{login}``) only for people a report names (hot discussions,
the focus topic), kept in the mirror with the moment it was fetched, and fetched again once
older than ``max_age``. A fetch is spare work: it is made only while the hourly budget is
above the reserve (never without a token unless GitHub said that budget remains, and then only
from the upper half of the limit); otherwise
the cached company, however old, or none, is used.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from digest.errors import DigestError, NotFound
from digest.github.client import GitHubClient
from digest.github.reserve import DEFAULT_SHARE

log = logging.getLogger(__name__)

MAX_AGE = timedelta(days=30)
ANONYMOUS_SHARE = 0.5  # without a token, half the hourly limit (60) stays for the data
FETCH_LIMIT = 20  # profiles fetched for one report at most


@dataclass(frozen=True, slots=True)
class Profile:
    """What a GitHub profile says of a person: the ``company`` field ("" when empty)."""

    login: str
    company: str
    fetched_at: datetime


class ProfileStore(Protocol):
    """Where profiles are kept (the mirror's SQLite or Redis store)."""

    async def profiles(self, logins: Sequence[str]) -> dict[str, Profile]:
        """The stored profiles of ``logins`` (lower-cased keys)."""
        ...

    async def put_profiles(self, profiles: Sequence[Profile]) -> None: ...


def spare_budget(client: GitHubClient, share: float = DEFAULT_SHARE) -> bool:
    """Whether a request that no report needs may be spent now: the hourly budget GitHub last
    reported is above ``share`` of its limit (``ANONYMOUS_SHARE`` at least without a token);
    before any answer, only with a token."""
    status = client.rate.get("core")
    if status is None or status.limit is None or status.remaining is None:
        return client.authenticated
    if not client.authenticated:
        share = max(share, ANONYMOUS_SHARE)
    return status.remaining >= max(1, math.ceil(status.limit * share))


class Profiles:
    """The companies of the people a report names, from the mirror or fetched within budget."""

    def __init__(
        self,
        store: ProfileStore,
        client: GitHubClient,
        *,
        clock: Callable[[], datetime],
        max_age: timedelta = MAX_AGE,
        share: float = DEFAULT_SHARE,
        limit: int = FETCH_LIMIT,
    ) -> None:
        self._store = store
        self._client = client
        self._clock = clock
        self._max_age = max_age
        self._share = share
        self._limit = limit
        self.fetched = 0  # profiles fetched from GitHub

    async def companies(self, logins: Iterable[str]) -> Mapping[str, str]:
        """``{login: company}`` for ``logins`` whose profile names a company."""
        wanted = list(dict.fromkeys(login for login in logins if login))
        if not wanted:
            return {}
        known = await self._store.profiles(wanted)
        now = self._clock()
        stale = [
            login
            for login in wanted
            if login.lower() not in known or now - known[login.lower()].fetched_at > self._max_age
        ]
        fresh: list[Profile] = []
        for login in stale[: self._limit]:
            if not spare_budget(self._client, self._share):
                log.info("profiles.budget_spent", extra={"left": len(stale) - len(fresh)})
                break
            try:
                row = await self._client.user(login)
            except NotFound:  # a deleted or renamed account: kept as having no company
                row = {}
            except DigestError as failure:  # GitHub down or refusing: asked again next time
                log.info("profiles.unavailable", extra={"login": login, "error": str(failure)})
                continue
            company = str(row.get("company") or "").strip()
            fresh.append(Profile(login, company, now))
        if fresh:
            await self._store.put_profiles(fresh)
            self.fetched += len(fresh)
            known.update((p.login.lower(), p) for p in fresh)
        return {
            login: known[login.lower()].company
            for login in wanted
            if login.lower() in known and known[login.lower()].company
        }
