"""The build pipeline: sync the mirror, read the window, analyse, write, assemble a digest."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from digest.analysis.types import HISTORY_WINDOWS, Analysis, WindowData
from digest.errors import ConfigError, DigestError
from digest.i18n import t
from digest.mirror.profiles import Profiles
from digest.mirror.store import Completion, Store, Sync, SyncResult
from digest.models import Comment, Digest, Item, Lang, Organisation, Topic, Window
from digest.scope import Scope
from digest.writers.base import Writer

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DigestRequest:
    """Everything that determines one digest.

    ``scope`` is the report's subject when it is more than ``repo`` alone (several
    repositories, filters, a configured name); ``repo`` is then its first repository. Without
    it the request is the one-element scope of ``repo``, and its key is what it always was.
    """

    repo: str
    window: Window
    lang: Lang
    writer: str
    topics: tuple[Topic, ...]
    display_name: str = ""
    config_fingerprint: str = ""
    organisations: tuple[Organisation, ...] = ()  # the affiliation map
    glossary: tuple[tuple[str, str], ...] = ()  # extra glossary entries (term, Chinese)
    scope: Scope | None = None

    @property
    def subject(self) -> Scope:
        """The scope the digest covers: ``scope``, else the one-element scope of ``repo``."""
        return self.scope or Scope.one(self.repo)

    @property
    def repos(self) -> tuple[str, ...]:
        return self.subject.repos

    @property
    def key(self) -> str:
        """A stable identity for caching and single-flight builds."""
        topics = ",".join(t.name for t in self.topics)
        key = (
            f"{self.repo.lower()}|{self.window.start.isoformat()}|{self.window.end.isoformat()}|"
            f"{self.window.timezone}|{self.window.label}|{self.lang}|{self.writer}|{topics}|"
            f"{self.config_fingerprint}"
        )
        scope = self.scope
        if scope is None or (scope.plain and not scope.name):
            return key  # one repository: the key it always had
        return f"{key}|scope:{scope.name}|{scope.key}"


async def load_window(
    store: Store,
    repo: str,
    window: Window,
    repo_url: str,
    synced_at: datetime | None = None,
    *,
    covered_from: datetime | None = None,
) -> WindowData:
    """The items created, closed, merged or commented on in ``window``, and its comments.

    When the mirror is complete from ``covered_from`` on, the data also carries the previous
    window (for follow-ups) and, when it reaches back that far, the items of the 7 windows
    before (for rising themes). Every item is as it stood at the window's end, its later
    merge or close in ``later`` (:func:`digest.analysis.fates.at_end`), an issue's close
    naming the merged PR that closed it (:func:`_fixed_later`).
    """
    from digest.analysis.fates import at_end  # not needed for a digest from the cache

    data = await _load(store, repo, window, repo_url, synced_at)
    if covered_from is None:
        return await _fixed_later(store, at_end(data))
    length = window.end - window.start
    previous: WindowData | None = None
    if covered_from <= window.start - length:
        before = replace(window, start=window.start - length, end=window.start, ends_now=False)
        previous = await _load(store, repo, before, repo_url, synced_at)
    history: list[tuple[Item, ...]] = []
    if covered_from <= window.start - HISTORY_WINDOWS * length:
        for k in range(1, HISTORY_WINDOWS + 1):
            lo, hi = window.start - k * length, window.start - (k - 1) * length
            found: dict[int, Item] = {}
            for batch in (
                await store.items_created(repo, lo, hi),
                await store.items_closed(repo, lo, hi),
                await store.items_merged(repo, lo, hi),
            ):
                found.update((item.number, item) for item in batch)
            history.append(tuple(found[n] for n in sorted(found)))
    return await _fixed_later(
        store, at_end(replace(data, previous=previous, history=tuple(history)))
    )


async def _fixed_later(store: Store, data: WindowData) -> WindowData:
    """``data`` with each issue closed after the window naming the PR that closed it: the PRs
    merged around each close are looked up in the mirror (they are rarely the window's own),
    :func:`digest.analysis.fates.fixed_later` picks the one that says it fixes the issue."""
    from digest.analysis.fates import FIX_GAP, fixed_later

    closes = sorted(f.at for f in data.later if not f.is_pr and f.event == "closed")
    spans: list[list[datetime]] = []  # closes within 2 × FIX_GAP of each other: one query
    for at in closes:
        if spans and at - FIX_GAP <= spans[-1][1]:
            spans[-1][1] = at + FIX_GAP
        else:
            spans.append([at - FIX_GAP, at + FIX_GAP])
    prs: dict[int, Item] = {}
    for start, end in spans:
        near = await store.items_merged(data.repo, start, end + timedelta(microseconds=1))
        prs.update((pr.number, pr) for pr in near)
    return fixed_later(data, prs.values()) if prs else data


async def _load(
    store: Store, repo: str, window: Window, repo_url: str, synced_at: datetime | None
) -> WindowData:
    start, end = window.start, window.end
    comments: list[Comment] = await store.comments_created(repo, start, end)
    found: dict[int, Item] = {}
    for batch in (
        await store.items_created(repo, start, end),
        await store.items_closed(repo, start, end),
        await store.items_merged(repo, start, end),
    ):
        for item in batch:
            found[item.number] = item
    missing = sorted({c.item_number for c in comments} - found.keys())
    if missing:
        for item in await store.items_by_number(repo, missing):
            found[item.number] = item
    items = tuple(sorted(found.values(), key=lambda i: i.number))
    ordered = tuple(sorted(comments, key=lambda c: (c.created_at, c.id)))
    return WindowData(repo, repo_url, window, items, ordered, synced_at)


# what a caller has synced for a request: nothing, its one repository's result, or one
# result (or None) per repository of its scope, in the scope's order
Synced = SyncResult | list[SyncResult | None] | tuple[SyncResult | None, ...] | None


def aligned(synced: Synced, repos: Sequence[str]) -> tuple[SyncResult | None, ...]:
    """``synced`` as one result (or None) per repository of ``repos``."""
    if synced is None:
        return (None,) * len(repos)
    if not isinstance(synced, list | tuple):
        return (synced, *(None,) * (len(repos) - 1))
    if len(synced) != len(repos):
        raise ValueError(f"{len(synced)} sync results for {len(repos)} repositories")
    return tuple(synced)


DEFAULT_BUILDS = 4
# the notes of a sync the rate limit stopped (digest.mirror.sync): the digest is behind
BEHIND_NOTES = frozenset({"sync.behind", "sync.unsearched", "sync.resets"})


class BuildSlots:
    """At most ``limit`` digest builds at once in a process, shared by its builders."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a cap of builds must be positive, not {limit}")
        self.limit = limit
        self.running = 0
        self.peak = 0  # the most builds that ran at once
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            self._slots, self._loop = asyncio.Semaphore(self.limit), loop
        async with self._slots:
            self.running += 1
            self.peak = max(self.peak, self.running)
            try:
                yield
            finally:
                self.running -= 1


def completion_note(completion: Completion, lang: Lang) -> str:
    """When a digest the rate limit left incomplete can be complete, in ``lang``."""
    when = completion.at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return t("note.completes", lang, when=when, n=completion.requests, rate=completion.per_hour)


class DigestBuilder:
    """Builds a digest without any caching (the cache wraps this)."""

    def __init__(
        self,
        *,
        store: Store,
        sync: Sync | None,
        writers: Mapping[str, Writer],
        clock: Callable[[], datetime],
        web_url: str = "https://github.com",
        slots: BuildSlots | None = None,
        profiles: Profiles | None = None,
    ) -> None:
        self._store = store
        self._profiles = profiles  # the companies of the people a report names
        self._slots = slots or BuildSlots(DEFAULT_BUILDS)
        self._sync = sync
        self._writers = writers
        self._clock = clock
        self._web_url = web_url.rstrip("/")
        self.builds = 0
        self.analyses = 0  # analyses run (a digest in another language of the same data
        # reuses the last one: the analysis does not depend on the language)
        self._last: tuple[object, WindowData, Analysis] | None = None

    @property
    def slots(self) -> BuildSlots:
        """The cap on builds at once this builder shares."""
        return self._slots

    @property
    def writer_names(self) -> Sequence[str]:
        return tuple(self._writers)

    async def _with_companies(self, analysis: Analysis) -> Analysis:
        """``analysis`` with the profile companies of the people it names, when profiles are
        kept; a store or GitHub failure leaves affiliation to the logins."""
        if self._profiles is None:
            return analysis
        from digest.analysis.people import named_people

        try:
            companies = await self._profiles.companies(named_people(analysis.hot, analysis.topics))
        except DigestError as failure:
            log.warning("digest.profiles_unavailable", extra={"error": str(failure)})
            return analysis
        return replace(analysis, companies=companies) if companies else analysis

    async def build(self, request: DigestRequest, synced: Synced = None) -> Digest:
        """Sync, analyse and write the digest that ``request`` describes.

        ``synced`` is the result of the sync its caller has just run for the request (the
        service's; one per repository of its scope); without it the builder runs its own
        sync, if it has one. At most ``slots.limit`` builds run at once; the others wait
        their turn.
        """
        async with self._slots.slot():
            return await self._build(request, synced)

    async def _repo_window(
        self, repo: str, request: DigestRequest, synced: SyncResult | None
    ) -> tuple[WindowData, list[str], bool]:
        """One repository's window of ``request``, the notes of its sync and whether the
        rate limit left it behind."""
        notes: list[str] = []
        behind = False
        if synced is None and self._sync is not None:
            synced = await self._sync.ensure(repo, request.window)
        if synced is not None:
            synced_at, covered = synced.synced_at, synced.covered_from
            notes.extend(note.text(request.lang) for note in synced.notes)
            behind = synced.completion is not None or any(
                note.key in BEHIND_NOTES for note in synced.notes
            )
            if synced.completion is not None:
                notes.append(completion_note(synced.completion, request.lang))
        else:
            state = await self._store.get_sync_state(repo)
            synced_at, covered = state.synced_at, state.covered_since
        # a renamed repository: the sync says what it is called now, and the report says it too
        repo = (synced.repo if synced is not None else None) or repo
        repo_url = f"{self._web_url}/{repo}"
        data = await load_window(
            self._store, repo, request.window, repo_url, synced_at, covered_from=covered
        )
        return data, notes, behind

    async def _build(self, request: DigestRequest, synced: Synced) -> Digest:
        writer = self._writers.get(request.writer)
        if writer is None:
            raise ConfigError(
                f"writer {request.writer!r} is not available "
                f"(available: {', '.join(self._writers) or 'none'})"
            )
        scope = request.subject
        given = aligned(synced, scope.repos)
        found = await asyncio.gather(
            *(self._repo_window(r, request, s) for r, s in zip(scope.repos, given, strict=True))
        )
        notes = [note for _data, said, _behind in found for note in said]
        notes.extend(
            t(
                "scope.owner.cut",
                request.lang,
                owner=p.owner,
                active=p.active,
                cap=p.cap,
                repos=", ".join(p.repos),
            )
            for p in scope.picked
            if p.cut
        )
        behind = any(late for _data, _said, late in found)
        repos = tuple(data.repo for data, _said, _behind in found)
        from digest.analysis.scoped import all_items, filtered, merged, per_repo, qualified

        data = merged([data for data, _said, _behind in found], repos)
        unfiltered = None
        if not scope.filters.empty:
            from digest.analysis.scoped import window_counts

            unfiltered = window_counts(data)
            data = filtered(data, scope.filters)
        repo, repo_url, synced_at = data.repo, data.repo_url, data.synced_at
        from digest.analysis.analyze import analyze  # not needed for a digest from the cache
        from digest.writers.later import noted

        inputs = (request.topics, request.organisations, request.glossary)
        last = self._last
        if last is not None and last[0] == inputs and last[1] == data:
            analysis = last[2]
        else:
            # the analysis is plain computation: off the event loop, which goes on serving
            analysis = await asyncio.to_thread(
                analyze,
                data,
                request.topics,
                organisations=request.organisations,
                glossary=request.glossary,
            )
            self.analyses += 1
            self._last = (inputs, data, analysis)
        analysis = await self._with_companies(analysis)
        written = await writer.write(analysis, request.lang)
        notes.extend(written.notes)
        self.builds += 1
        sections = written.sections
        if data.several:
            sections = qualified(sections, all_items(data))
        digest = Digest(
            repo=repo,
            window=request.window,
            lang=request.lang,
            counts=analysis.counts,
            sections=noted(sections, data.later, request.window, request.lang),
            generated_at=self._clock(),
            synced_at=synced_at,
            repo_url=repo_url,
            display_name=request.display_name or repo.split("/", 1)[-1],
            usage=written.usage,
            notes=tuple(notes),
            lists=analysis.lists.pairs(),
            later=data.later,
            behind=behind,
            scope=scope.name,
            repos=data.repos,
            repo_counts=per_repo(analysis.lists, data.repos) if data.several else (),
            unfiltered=unfiltered,
        )
        log.info(
            "digest.built",
            extra={
                "repo": ",".join(repos),
                "window_start": request.window.start.isoformat(),
                "window_end": request.window.end.isoformat(),
                "writer": request.writer,
                "items": len(data.items),
                "comments": len(data.comments),
            },
        )
        return digest
