"""Cached digests: one build per digest across every task, process and replica.

Guarantees of :class:`DigestService` (with :class:`~digest.mirror.gate.SyncGate` for syncs):

- **Cache.** A digest is cached under the request's identity (repository, window, language,
  writer, topics, configuration fingerprint) and the mirror's data version (its sync cursors
  and coverage), and the name of the writer behind ``request.writer`` (``llm:<model>``). A
  closed window (ending at or before the last sync) stays cached until the data or the
  configuration changes (at most ``closed_ttl``); a window that is still open, and a digest
  with a visible degradation (a note: a section the model could not write, incomplete data),
  expire after ``live_ttl`` (minutes), so a later request gets a chance at the whole digest.
- **Single flight.** Concurrent requests for one digest build it once: tasks of a process
  share one flight, processes share a lock in the shared state; the others wait for the
  published digest (up to ``wait_timeout``, then they build it themselves). If the builder
  dies, its lock expires after ``lock_ttl`` and a waiter takes over.
- **Degraded mode.** When the shared state (Redis) is unavailable, at start or mid-run, every
  request is still answered: built directly, without the shared cache (concurrent requests
  in one process still share a build, and a process reuses the digests it built for their
  TTL). A ``state.degraded`` warning (fields: component, server, op, error) is logged once
  per outage and Redis client component, ``state.recovered`` when it ends; every call tries
  Redis again after a short back-off (0.5 s), so caching resumes without a restart.
- **Mirror in Redis.** When the builder's mirror is in Redis and Redis is down, ``fallback``
  (a builder over a local SQLite mirror with its own sync) answers: its first sync of a
  repository backfills from GitHub (slower), later ones are incremental. Each mirror is only
  written by its own sync, so neither records cursors for rows it lacks; when Redis is back
  the shared mirror catches up from its own cursors.
- **Not guaranteed during an outage:** single flight across processes (each process may
  build the same digest once), reuse of other replicas' syncs and of the shared cache, and
  a shared budget of GitHub requests. Nothing is posted twice: a "posted" claim that cannot
  be made is not a licence to post (see :mod:`digest.state.base`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Protocol

from digest.builder import DigestRequest, Synced
from digest.codec import CODEC_VERSION, CodecError, decode_digest, encode_digest
from digest.errors import ConfigError, DigestError, RepoRefused, StateUnavailable
from digest.mirror.store import Store, Sync, SyncResult, SyncState
from digest.models import Digest, Window
from digest.scope import Scope
from digest.state.base import SharedState
from digest.state.single_flight import FlightStats, SingleFlight

log = logging.getLogger(__name__)

# The byte budget of a process's digests kept in memory (compressed): ~30 digests of 30 days.
DEFAULT_MEMO_BYTES = 32 * 1024 * 1024


class Owners(Protocol):
    """Resolves a scope's ``owner/*`` entries (:class:`digest.mirror.owners.OwnerRepos`)."""

    async def resolve(self, scope: Scope, window: Window) -> Scope: ...


class Builder(Protocol):
    """Builds a digest without caching (:class:`digest.builder.DigestBuilder`): over the mirror
    as ``synced`` left it, else after a sync of its own."""

    async def build(self, request: DigestRequest, synced: Synced = None) -> Digest: ...


def data_version(state: SyncState) -> str:
    """The mirror's version: changes whenever a sync brings new data or wider coverage."""
    moments = (
        state.items_cursor,
        state.comments_cursor,
        state.review_comments_cursor,
        state.covered_since,
    )
    return "|".join("-" if m is None else m.isoformat() for m in moments)


def cache_key(request: DigestRequest, version: str, writer: str = "") -> str:
    """The shared-state key of a digest of ``request`` over mirror data ``version``, written by
    ``writer`` (the name behind ``request.writer``, e.g. ``llm:qwen3-8b``)."""
    digest = hashlib.sha256(f"{request.key}#{writer}#{version}".encode()).hexdigest()[:40]
    return f"digest:v{CODEC_VERSION}:{digest}"


class _Memo:
    """Recently served digests within a byte budget, least recently used evicted first.

    Entries are kept encoded and compressed (a 30-day digest is about 1 MB so, against 10+ MB
    as a decoded model), and decoded when served. Each is kept for its shared entry's TTL from
    when it was served (a digest read from the cache may so outlive its shared entry by up to
    one TTL). Both the injected clock and the monotonic clock must be before the deadline, so
    an entry expires on time whichever clock the shared state follows. An entry larger than
    the whole budget is not kept.
    """

    def __init__(self, budget: int, clock: Callable[[], datetime]) -> None:
        self._budget = budget
        self._clock = clock
        self._entries: OrderedDict[str, tuple[datetime, float, bytes]] = OrderedDict()
        self.size = 0  # bytes held

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def packed(self, key: str) -> bytes | None:
        """The compressed encoding of the digest under ``key``, while it is kept."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        until, until_mono, packed = entry
        if self._clock() >= until or time.monotonic() >= until_mono:
            self._drop(key)
            return None
        self._entries.move_to_end(key)
        return packed

    def get(self, key: str) -> Digest | None:
        packed = self.packed(key)
        return None if packed is None else _unpack(packed)

    def put(self, key: str, encoded: str, ttl: timedelta) -> None:
        if self._budget <= 0:
            return
        packed = zlib.compress(encoded.encode(), 1)
        self._drop(key)
        if len(packed) > self._budget:
            return
        deadline = (self._clock() + ttl, time.monotonic() + ttl.total_seconds())
        self._entries[key] = (*deadline, packed)
        self.size += len(packed)
        while self.size > self._budget:
            self._drop(next(iter(self._entries)))

    def _drop(self, key: str) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.size -= len(entry[2])


def _unpack(packed: bytes) -> Digest:
    return decode_digest(zlib.decompress(packed))


class DigestService:
    """``get_digest(request)``: a cached digest when valid, else one shared build.

    ``sync`` (the same :class:`~digest.mirror.gate.SyncGate` the builder uses) brings the
    mirror up to date before the cache is consulted, once per request: a build goes on from
    its result and does not sync again. ``store`` (the builder's mirror) gives the data
    version. Without a store, the key carries no data version and every digest lives for
    ``live_ttl``. ``fallback`` (a builder over a local mirror with its own sync) answers
    when the builder's mirror is unavailable (Redis down); without it that error propagates.
    ``writer_names`` maps a request's writer to its name, so another model is another digest.
    ``owners`` resolves a scope's ``owner/*`` entries for the request's window first (without
    it such a scope is a ``ConfigError``).
    """

    def __init__(
        self,
        builder: Builder,
        state: SharedState,
        clock: Callable[[], datetime],
        *,
        store: Store | None = None,
        sync: Sync | None = None,
        fallback: Builder | None = None,
        writer_names: Mapping[str, str] | None = None,
        owners: Owners | None = None,
        live_ttl: timedelta = timedelta(minutes=5),
        closed_ttl: timedelta = timedelta(days=7),
        wait_timeout: timedelta = timedelta(minutes=2),
        lock_ttl: timedelta = timedelta(seconds=30),
        poll: timedelta = timedelta(milliseconds=50),
        memo_bytes: int = DEFAULT_MEMO_BYTES,
    ) -> None:
        self._builder = builder
        self._owners = owners
        self._fallback = fallback
        self._writer_names = dict(writer_names or {})
        self._memo = _Memo(memo_bytes, clock)
        self._state = state
        self._clock = clock
        self._store = store
        self._sync = sync
        self._live_ttl = live_ttl
        self._closed_ttl = closed_ttl
        self._flight: SingleFlight[Digest] = SingleFlight(
            state, name="digest", lock_ttl=lock_ttl, wait_timeout=wait_timeout, poll=poll
        )
        self._local: dict[str, asyncio.Task[Digest]] = {}

    @property
    def memo_bytes(self) -> int:
        """The bytes of the digests this process keeps in memory."""
        return self._memo.size

    @property
    def stats(self) -> FlightStats:
        """Counts of cache hits, builds, waits and direct (uncached) builds."""
        return self._flight.stats

    async def get_digest(self, request: DigestRequest) -> Digest:
        """The digest ``request`` describes, from the cache or built once for every caller."""
        request = await self._resolved(request)
        try:
            return await self._cached(request)
        except StateUnavailable:
            if self._fallback is None:
                raise
            return await self._build_locally(request, self._fallback)

    async def _resolved(self, request: DigestRequest) -> DigestRequest:
        """``request`` over its scope's ``owner/*`` entries' active repositories."""
        scope = request.scope
        if scope is None or not scope.owners:
            return request
        if self._owners is None:
            raise ConfigError(f"{', '.join(scope.owners)}/*: an owner's repositories need GitHub")
        scope = await self._owners.resolve(scope, request.window)
        return replace(request, repo=scope.repos[0], scope=scope)

    async def _build_locally(self, request: DigestRequest, builder: Builder) -> Digest:
        """One build per request at a time in this process, without shared state."""
        task = self._local.get(request.key)
        if task is None:
            task = asyncio.create_task(builder.build(request))
            self._local[request.key] = task
            task.add_done_callback(lambda done: self._forget(request.key, done))
        self._flight.stats.direct += 1
        return await asyncio.shield(task)

    def _forget(self, key: str, task: asyncio.Task[Digest]) -> None:
        if self._local.get(key) is task:
            del self._local[key]
        if not task.cancelled():
            task.exception()  # retrieved here so an unawaited failure is never reported

    async def _synced(
        self, repo: str, request: DigestRequest
    ) -> tuple[SyncResult | None, DigestError | None]:
        """The sync of one repository of ``request`` before the cache is consulted, or the
        error that stopped it (the mirror as it is may still have a cached digest)."""
        if self._sync is None:
            return None, None
        try:
            return await self._sync.ensure(repo, request.window), None
        except (StateUnavailable, RepoRefused):  # a refused repository shows nothing cached
            raise
        except DigestError as exc:
            log.warning("digest.sync_failed", extra={"repo": repo, "error": type(exc).__name__})
            return None, exc

    async def _cached(self, request: DigestRequest) -> Digest:
        repos = request.repos
        found = await asyncio.gather(*(self._synced(repo, request) for repo in repos))
        results = tuple(result for result, _error in found)
        sync_error = next((error for _result, error in found if error is not None), None)
        versions: list[str] = []
        moments: list[datetime | None] = []
        names: list[str] = []
        for repo, result in zip(repos, results, strict=True):
            repo = (result.repo if result is not None else None) or repo  # after a rename
            names.append(repo)
            mirror = await self._store.get_sync_state(repo) if self._store else None
            versions.append(data_version(mirror) if mirror else "")
            moments.append(mirror.synced_at if mirror else None)
        synced: Synced = results[0] if len(results) == 1 else results
        writer = self._writer_names.get(request.writer, "")
        version = "#".join(versions) if self._store else ""
        if list(names) != list(repos):  # a renamed repository's digest carries its new name:
            version += "@" + ",".join(names)  # not the one cached under the old one
        key = cache_key(request, version, writer)
        synced_at = None if None in moments else min(m for m in moments if m is not None)
        closed = not request.window.ends_now and (
            synced_at is not None and request.window.end <= synced_at
        )
        ttl = self._closed_ttl if closed else self._live_ttl
        # Encoding, decoding and compressing a long window's digest take a good part of a
        # second: off the event loop, which goes on serving.
        if (packed := self._memo.packed(key)) is not None:
            self._flight.stats.found += 1
            return await asyncio.to_thread(_unpack, packed)

        encoded: list[str] = []  # the digest's encoded form, once read or written here

        async def lookup() -> Digest | None:
            raw = await self._state.get(key)
            if raw is None:
                return None
            try:
                found = await asyncio.to_thread(decode_digest, raw)
            except CodecError as exc:
                log.warning("digest.cache_unreadable", extra={"key": key, "error": str(exc)})
                return None
            encoded.append(raw)
            return found

        async def publish(digest: Digest) -> None:
            encoded.append(await asyncio.to_thread(encode_digest, digest))
            await self._state.set(key, encoded[-1], self._keep_for(digest, ttl))

        if sync_error is not None:
            cached = await lookup()
            if cached is None:
                raise sync_error  # building would only repeat the failed sync
            self._memo.put(key, encoded[-1], self._keep_for(cached, ttl))
            return cached
        digest = await self._flight.run(
            key, f"lock:{key}", lookup, lambda: self._builder.build(request, synced), publish
        )
        if key not in self._memo:  # tasks sharing this flight find it there
            payload = encoded[-1] if encoded else await asyncio.to_thread(encode_digest, digest)
            self._memo.put(key, payload, self._keep_for(digest, ttl))
        return digest

    def _keep_for(self, digest: Digest, ttl: timedelta) -> timedelta:
        """A digest with a visible degradation is kept no longer than an open window's."""
        return min(ttl, self._live_ttl) if digest.notes else ttl
