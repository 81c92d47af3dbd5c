"""The shared store: the mirror in Redis, for every bot replica.

Layout per repository ``R`` under a key prefix ``P`` (the ``{R}`` hash tag keeps a repository's
keys in one cluster slot):

- ``P{R}:items`` hash ``number -> item JSON``; ``P{R}:comments`` and ``P{R}:review_comments``
  hashes ``id -> comment JSON`` (conversation and inline review comments: ids are unique per
  kind only);
- ``P{R}:items:created_at`` / ``closed_at`` / ``merged_at`` / ``updated_at``,
  ``P{R}:comments:created_at`` and ``P{R}:review_comments:created_at``: sorted sets of numbers
  (ids) scored by epoch microseconds, so
  a window query is one ``ZRANGE BYSCORE`` plus one ``HMGET``, never a scan;
- ``P{R}:sync``: the sync state as JSON;
- ``Pprofiles``: hash ``lower-case login -> profile JSON`` (company, when fetched), shared by
  every repository.

The client is passed in (``redis.asyncio.Redis``) and owned by the caller; failures raise
:class:`~digest.errors.StateUnavailable` (see :mod:`digest.backends.redis.guard`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from redis.asyncio import Redis

from digest.backends.redis.guard import RedisGuard, server_of
from digest.mirror.item_windows import Column, ItemWindows
from digest.mirror.profiles import Profile
from digest.mirror.rows import (
    comment_from_dict,
    comment_to_dict,
    from_micros,
    item_from_dict,
    item_to_dict,
    opt_micros,
    opt_moment,
    to_micros,
)
from digest.mirror.store import SyncState
from digest.models import Comment, Item

SCHEMA_VERSION = 1
_ITEM_TIMES = ("created_at", "closed_at", "merged_at", "updated_at")


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _item_json(item: Item) -> str:
    return json.dumps({"v": SCHEMA_VERSION, **item_to_dict(item)}, ensure_ascii=False)


def _item(repo: str, number: int, raw: bytes | str) -> Item:
    return item_from_dict(repo, number, json.loads(raw))


def _comment_json(comment: Comment) -> str:
    return json.dumps({"v": SCHEMA_VERSION, **comment_to_dict(comment)}, ensure_ascii=False)


def _comment_kind(comment: Comment) -> str:
    """The key family of ``comment``: ``comments`` or ``review_comments``."""
    return "review_comments" if comment.is_review else "comments"


def _comment(repo: str, comment_id: int, raw: bytes | str) -> Comment:
    return comment_from_dict(repo, comment_id, json.loads(raw))


class RedisStore(ItemWindows):
    """A :class:`~digest.mirror.store.Store` in Redis, shared by every replica."""

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "vllm-report:",
        timeout: float = 2.0,
        retry_after: float = 0.5,
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._guard = RedisGuard(
            component="store", server=server_of(client), timeout=timeout, retry_after=retry_after
        )

    def _key(self, repo: str, *parts: str) -> str:
        return ":".join((f"{self._prefix}{{{repo}}}", *parts))

    # -- writes ---------------------------------------------------------------------------

    async def upsert_items(self, items: Sequence[Item]) -> None:
        if not items:
            return

        async def write() -> None:
            async with self._redis.pipeline(transaction=True) as pipe:
                for item in items:
                    member = str(item.number)
                    pipe.hset(self._key(item.repo, "items"), member, _item_json(item))
                    for column in _ITEM_TIMES:
                        key = self._key(item.repo, "items", column)
                        moment: datetime | None = getattr(item, column)
                        if moment is None:
                            pipe.zrem(key, member)
                        else:
                            pipe.zadd(key, {member: to_micros(moment)})
                await pipe.execute()

        await self._guard.run("upsert_items", write)

    async def upsert_comments(self, comments: Sequence[Comment]) -> None:
        if not comments:
            return

        async def write() -> None:
            async with self._redis.pipeline(transaction=True) as pipe:
                for comment in comments:
                    member, kind = str(comment.id), _comment_kind(comment)
                    pipe.hset(self._key(comment.repo, kind), member, _comment_json(comment))
                    pipe.zadd(
                        self._key(comment.repo, kind, "created_at"),
                        {member: to_micros(comment.created_at)},
                    )
                await pipe.execute()

        await self._guard.run("upsert_comments", write)

    async def delete_items(self, repo: str, numbers: Sequence[int]) -> None:
        """Remove items and their comments; comments are found by reading the comment hashes
        (a rare, budgeted repair, not a window query)."""
        wanted = {int(n) for n in numbers}
        if not wanted:
            return

        async def delete() -> None:
            doomed: dict[str, list[str]] = {}
            for kind in ("comments", "review_comments"):
                async for member, raw in self._redis.hscan_iter(self._key(repo, kind)):
                    if json.loads(raw)["item_number"] in wanted:
                        doomed.setdefault(kind, []).append(_text(member))
            async with self._redis.pipeline(transaction=True) as pipe:
                members = [str(n) for n in wanted]
                pipe.hdel(self._key(repo, "items"), *members)
                for column in _ITEM_TIMES:
                    pipe.zrem(self._key(repo, "items", column), *members)
                for kind, ids in doomed.items():
                    pipe.hdel(self._key(repo, kind), *ids)
                    pipe.zrem(self._key(repo, kind, "created_at"), *ids)
                await pipe.execute()

        await self._guard.run("delete_items", delete)

    # -- whole repositories ---------------------------------------------------------------

    async def mirrored_repos(self) -> list[str]:
        """Every repository the mirror holds anything of (a ``SCAN`` of the prefix: a rare
        maintenance call, not a window query)."""
        head = len(self._prefix) + 1

        async def query() -> list[str]:
            found: set[str] = set()
            async for raw in self._redis.scan_iter(match=f"{self._prefix}{{*}}:*", count=500):
                key = _text(raw)
                end = key.find("}:", head)
                if end > head:
                    found.add(key[head:end])
            return sorted(found)

        return await self._guard.run("mirrored_repos", query)

    def _repo_keys(self, repo: str) -> list[str]:
        """Every key of ``repo``'s mirror."""
        keys = [self._key(repo, "items"), self._key(repo, "sync")]
        keys += [self._key(repo, "items", column) for column in _ITEM_TIMES]
        for kind in ("comments", "review_comments"):
            keys += [self._key(repo, kind), self._key(repo, kind, "created_at")]
        return keys

    async def rename_repo(self, old: str, new: str) -> bool:
        """Move the mirror of ``old`` to ``new``, a repository renamed on GitHub (its rows keep
        their links, which GitHub redirects); ``False`` (nothing moved) when ``new`` has a
        mirror already."""
        pairs = list(zip(self._repo_keys(old), self._repo_keys(new), strict=True))

        async def move() -> bool:
            if await self._redis.exists(*(target for _, target in pairs)):
                return False
            present = [pair for pair in pairs if await self._redis.exists(pair[0])]
            async with self._redis.pipeline(transaction=True) as pipe:
                for source, target in present:
                    pipe.rename(source, target)
                await pipe.execute()
            return True

        return bool(await self._guard.run("rename_repo", move))

    async def drop_repo(self, repo: str) -> None:
        """Remove every key of ``repo``: its items, comments, their indexes and sync state."""
        keys = self._repo_keys(repo)

        async def delete() -> None:
            await self._redis.delete(*keys)

        await self._guard.run("drop_repo", delete)

    # -- window queries -------------------------------------------------------------------

    async def _between(
        self, repo: str, kind: str, column: str, start: datetime, end: datetime
    ) -> list[tuple[int, bytes | str]]:
        index, rows = self._key(repo, kind, column), self._key(repo, kind)
        low, high = to_micros(start), f"({to_micros(end)}"

        async def query() -> list[tuple[int, bytes | str]]:
            members = cast(list[bytes | str], await self._redis.zrangebyscore(index, low, high))
            if not members:
                return []
            values = await self._redis.hmget(rows, members)
            return [(int(m), v) for m, v in zip(members, values, strict=True) if v is not None]

        return await self._guard.run(f"{kind}_{column}", query)

    async def _items_between(
        self, column: Column, repo: str, start: datetime, end: datetime
    ) -> list[Item]:
        found = [
            _item(repo, n, raw) for n, raw in await self._between(repo, "items", column, start, end)
        ]
        return sorted(found, key=lambda i: (getattr(i, column), i.number))

    async def comments_created(self, repo: str, start: datetime, end: datetime) -> list[Comment]:
        """Conversation and review comments created in ``[start, end)``, oldest first."""
        found: list[Comment] = []
        for kind in ("comments", "review_comments"):
            rows = await self._between(repo, kind, "created_at", start, end)
            found.extend(_comment(repo, i, raw) for i, raw in rows)
        return sorted(found, key=lambda c: (c.created_at, c.id))

    async def items_by_number(self, repo: str, numbers: Sequence[int]) -> list[Item]:
        """The mirrored items among ``numbers``, in the order asked, unknown numbers skipped."""
        wanted = list(dict.fromkeys(numbers))
        if not wanted:
            return []
        key = self._key(repo, "items")

        async def query() -> list[bytes | str | None]:
            return list(await self._redis.hmget(key, [str(n) for n in wanted]))

        values = await self._guard.run("items_by_number", query)
        return [_item(repo, n, raw) for n, raw in zip(wanted, values, strict=True) if raw]

    # -- sync state -----------------------------------------------------------------------

    async def get_sync_state(self, repo: str) -> SyncState:
        key = self._key(repo, "sync")
        raw = await self._guard.run("get_sync_state", lambda: self._redis.get(key))
        if raw is None:
            return SyncState()
        data: dict[str, Any] = json.loads(_text(raw))
        return SyncState(
            items_cursor=opt_moment(data["items_cursor"]),
            comments_cursor=opt_moment(data["comments_cursor"]),
            covered_since=opt_moment(data["covered_since"]),
            synced_at=opt_moment(data["synced_at"]),
            etags=dict(data["etags"]),
            review_comments_cursor=opt_moment(data.get("review_comments_cursor")),
            review_comments_checked=opt_moment(data.get("review_comments_checked")),
        )

    async def set_sync_state(self, repo: str, state: SyncState) -> None:
        value = json.dumps(
            {
                "v": SCHEMA_VERSION,
                "items_cursor": opt_micros(state.items_cursor),
                "comments_cursor": opt_micros(state.comments_cursor),
                "covered_since": opt_micros(state.covered_since),
                "synced_at": opt_micros(state.synced_at),
                "etags": state.etags,
                "review_comments_cursor": opt_micros(state.review_comments_cursor),
                "review_comments_checked": opt_micros(state.review_comments_checked),
            },
            sort_keys=True,
        )
        key = self._key(repo, "sync")
        await self._guard.run("set_sync_state", lambda: self._redis.set(key, value))

    # -- profiles -------------------------------------------------------------------------

    async def profiles(self, logins: Sequence[str]) -> dict[str, Profile]:
        wanted = sorted({login.lower() for login in logins})
        if not wanted:
            return {}
        key = f"{self._prefix}profiles"

        async def query() -> list[bytes | str | None]:
            return list(await self._redis.hmget(key, wanted))

        found: dict[str, Profile] = {}
        for login, raw in zip(wanted, await self._guard.run("profiles", query), strict=True):
            if raw is not None:
                data = json.loads(_text(raw))
                found[login] = Profile(data["login"], data["company"], from_micros(data["at"]))
        return found

    async def put_profiles(self, profiles: Sequence[Profile]) -> None:
        values: dict[str, str] = {
            p.login.lower(): json.dumps(
                {
                    "v": SCHEMA_VERSION,
                    "login": p.login,
                    "company": p.company,
                    "at": to_micros(p.fetched_at),
                },
                ensure_ascii=False,
            )
            for p in profiles
        }
        key = f"{self._prefix}profiles"

        async def write() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                for login, value in values.items():
                    pipe.hset(key, login, value)
                await pipe.execute()

        if values:
            await self._guard.run("put_profiles", write)

    async def close(self) -> None:
        """Nothing to release: the client belongs to the caller."""
