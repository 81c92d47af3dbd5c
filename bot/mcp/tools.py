"""What the MCP tools do, over the same core as the command line and chat: digests, answers
and the window's items, as typed results. No SDK here: :mod:`bot.mcp.server` publishes these.

Every method raises the core's errors (``DigestError`` and its kinds) or ``UsageError`` for
bad input, with the command line's words; the server turns them into tool errors.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import datetime
from typing import Any, TypeVar

from bot.commands import messages
from bot.commands.grammar import (
    AskCommand,
    DigestCommand,
    Options,
    UsageError,
    command_options,
    parse,
    repo_names,
)
from bot.commands.runner import ReportCore
from bot.commands.subjects import across, subject_words
from bot.mcp.items import (
    Filters,
    Kind,
    State,
    discussion,
    fixed_by,
    linked,
    matching,
    row,
    thread_of,
    window_info,
)
from bot.mcp.results import (
    AnswerResult,
    CountsInfo,
    DigestResult,
    ItemResult,
    ItemRow,
    ItemsResult,
    LinkedItem,
    SectionInfo,
)
from config.settings import AppConfig
from digest.analysis.types import WindowData
from digest.builder import load_window
from digest.errors import NotFound
from digest.github.client import GitHubClient
from digest.github.parse import item_from_api
from digest.mirror.store import Store, Sync
from digest.models import Digest, Item, ItemRef, Lang, Pointer, Window, iter_spans
from digest.render.answer import render_answer_markdown
from digest.render.json import to_json
from digest.render.markdown import render_markdown, render_section
from digest.windows import spec_of, title_date

Progress = Callable[[float, float | None, str], Awaitable[None]]
"""Reports progress: (done so far, total if known, a sentence)."""

Admission = Callable[[str, str, Lang], AbstractAsyncContextManager[None]]
"""Lets a client's work of a kind (``digest``, ``question``) in, or raises a ``DigestError``
saying why not (in the language given); the work runs inside it. The composition root makes
it from the rate limits chat has; without one, nothing is limited."""

T = TypeVar("T")
LOCAL = "stdio"  # the one client of a server over stdin/stdout
HEARTBEAT_S = 2.0  # how often a long fetch says it is still going
RESULTS_KEPT = 8  # digest results kept as made: a digest from the cache is not rendered again
MAX_ITEMS = 200


def tool_line(pointer: Pointer) -> str:
    """How an answer points to more: the tool call that shows it, e.g.
    ``digest(window="week", topics=["rocm"])`` or ``ask(question="…")``."""
    if pointer.question is not None:
        return f"ask(question={json.dumps(pointer.question, ensure_ascii=False)})"
    spec = spec_of(pointer.window) if pointer.window is not None else "today"
    args = [f"window={json.dumps(spec)}"]
    if pointer.topic:
        args.append(f"topics={json.dumps([pointer.topic])}")
    if pointer.repo:
        args.append(f"repo={json.dumps(pointer.repo)}")
    return f"digest({', '.join(args)})"


def section_ids(digest: Digest, wanted: Sequence[str] | None) -> list[str]:
    """The ids of the sections to show: all, or those named (``topic`` names every topic
    section); an id the digest has no section for is a ``UsageError``."""
    have = [s.id for s in digest.sections]
    if wanted is None:
        return have
    chosen: list[str] = []
    for name in (w.strip().lower() for w in wanted):
        found = [i for i in have if i == name or (name == "topic" and i.startswith("topic:"))]
        if not found:
            raise UsageError(f"no section {name!r} in this digest (it has: {', '.join(have)})")
        chosen.extend(i for i in found if i not in chosen)
    return [i for i in have if i in chosen]


def digest_result(digest: Digest, ids: Sequence[str]) -> DigestResult:
    """``digest`` with the sections ``ids`` only, as the ``digest`` tool returns it."""
    shown = dataclasses.replace(digest, sections=tuple(s for s in digest.sections if s.id in ids))
    doc = to_json(shown)
    return DigestResult(
        repo=digest.repo,
        repos=list(digest.repos) if digest.several else [],
        scope=digest.scope,
        repo_url=digest.repo_url,
        display_name=digest.shown_name,
        lang=digest.lang.value,
        window=window_info(digest.window),
        date=title_date(digest.window),
        counts=CountsInfo(**digest.counts.as_dict()),
        sections=[SectionInfo(**section) for section in doc["sections"]],
        lists=doc["lists"] if "appendix" in ids else None,
        notes=list(digest.notes),
        writers=list(digest.writers),
        markdown=render_markdown(shown),
    )


def _scope_questions(config: AppConfig, options: Options) -> str:
    """What to ask over a scope: a question naming a configured topic (its report)."""
    topics = ", ".join(sorted(config.topics)) or "none"
    return (
        f"a question over {subject_words(options)} names a topic (configured: {topics}), e.g. "
        "\"what's new in ROCm?\", and gets that topic's report over it; any other question "
        "covers one repository: give repo instead of scope"
    )


def _subject(repo: str | None, scope: str | None) -> dict[str, Any]:
    """The core's ``repos`` and ``scope`` for a tool's ``scope`` argument: a configured
    scope's name, or ``a/b,c/d``; with ``repo`` too it is a ``UsageError``."""
    if scope is None:
        return {"repos": (), "scope": None}
    if repo is not None:
        raise UsageError("name a scope or repositories, not both (scope or repo)")
    text = scope.strip()
    if "/" in text:
        return {"repos": repo_names(text), "scope": None}
    return {"repos": (), "scope": command_options(scope=text).scope}


class ReportTools:
    """The tools' work: the same requests, cache and mirror as every other front end."""

    def __init__(
        self,
        *,
        core: ReportCore,
        store: Store,
        sync: Sync,
        config: AppConfig,
        clock: Callable[[], datetime],
        github: GitHubClient | None = None,
        web_url: str = "https://github.com",
        admission: Admission | None = None,
    ) -> None:
        self._core = core
        self._store = store
        self._sync = sync
        self._config = config
        self._clock = clock
        self._github = github
        self._web_url = web_url.rstrip("/")
        self._admission = admission
        self._results: dict[tuple[object, ...], DigestResult] = {}  # the latest, as made

    def _admitted(
        self, kind: str, client: str, lang: Lang | None
    ) -> AbstractAsyncContextManager[None]:
        if self._admission is None:
            return nullcontext()
        return self._admission(kind, client, lang or self._core.default_lang)

    @property
    def config(self) -> AppConfig:
        return self._config

    def error_text(self, error: BaseException) -> str:
        """The command line's words for ``error``."""
        return messages.command_line_error(error, self._clock())

    async def digest(
        self,
        window: str = "today",
        *,
        repo: str | None = None,
        scope: str | None = None,
        lang: Lang | None = None,
        topics: Sequence[str] | None = None,
        sections: Sequence[str] | None = None,
        progress: Progress | None = None,
        client: str = LOCAL,
    ) -> DigestResult:
        """The digest of ``window`` (of ``repo``, or of ``scope``: a configured scope's name or
        ``a/b,c/d``): every section, or only ``sections``, and its Markdown."""
        request = self._core.request(
            window,
            repo=repo,
            lang=lang,
            topics=tuple(topics) if topics is not None else None,
            **_subject(repo, scope),
        )
        cold = any([await self._cold(name, request.window) for name in request.repos])
        async with self._admitted("digest", client, request.lang):
            work = self._core.build(request)
            built = await self._fetching(
                ", ".join(request.repos), request.window.label, work, progress, cold=cold
            )
        ids = section_ids(built, sections)
        key = (request.key, built.generated_at, built.synced_at, built.notes, tuple(ids))
        made = self._results.get(key)
        if made is None:
            made = digest_result(built, ids)
            self._results[key] = made
            while len(self._results) > RESULTS_KEPT:
                self._results.pop(next(iter(self._results)))
        return made

    async def day_markdown(self, repo: str, date: str, lang: Lang, client: str = LOCAL) -> str:
        """A day's report (``date`` is YYYY-MM-DD, at the repository's cut-off) as Markdown."""
        request = self._core.request(date, repo=repo, lang=lang)
        async with self._admitted("digest", client, lang):
            return render_markdown(await self._core.build(request))

    async def ask(
        self,
        question: str,
        *,
        repo: str | None = None,
        scope: str | None = None,
        lang: Lang | None = None,
        progress: Progress | None = None,
        client: str = LOCAL,
    ) -> AnswerResult:
        """The linked answer to ``question`` and the items it links. Over a ``scope`` (or a
        question saying ``across NAME`` of a configured scope) a question naming a configured
        topic is that topic's report over the scope, as in chat; any other is refused with
        what to ask instead."""
        command = parse(f"ask {question}")
        if not isinstance(command, AskCommand):
            raise UsageError("ask what? e.g. `ask what's new in ROCm?`")
        opts = command.options
        if scope is not None:
            subject = _subject(repo, scope)
            opts = Options(opts.repo, opts.lang, repos=subject["repos"], scope=subject["scope"])
        if repo is None:
            over = across(self._config, AskCommand(command.question, opts))
            if isinstance(over, DigestCommand):
                return await self._topic_answer(question, over, lang, progress, client)
            if over.options.repos or over.options.scope:
                raise UsageError(_scope_questions(self._config, over.options))
        command = AskCommand(command.question, Options(repo or opts.repo, lang or opts.lang))
        name = command.options.repo or self._config.default_repo
        cold = (await self._store.get_sync_state(name)).covered_since is None
        async with self._admitted("question", client, command.options.lang):
            work = self._core.ask(command)
            answer = await self._fetching(name, "", work, progress, cold=cold)
        cited = await self._store.items_by_number(answer.repo, list(answer.cites))
        by_number = {item.number: item for item in cited}
        url = f"{answer.repo_url}/issues"
        items = [
            linked(by_number[n])
            if n in by_number
            else LinkedItem(number=n, kind="issue", title="", state="", url=f"{url}/{n}")
            for n in answer.cites
        ]
        return AnswerResult(
            question=answer.question,
            repo=answer.repo,
            lang=answer.lang.value,
            topic=answer.topic,
            window=window_info(answer.window),
            writer=answer.writer,
            items=items,
            notes=list(answer.notes),
            markdown=render_answer_markdown(answer, tool_line),
        )

    async def _topic_answer(
        self,
        question: str,
        command: DigestCommand,
        lang: Lang | None,
        progress: Progress | None,
        client: str,
    ) -> AnswerResult:
        """The answer to a question over a scope that names a topic: the topic's section of
        the scope's report, and the items it links, each with its repository."""
        options = command.options
        if lang is not None:
            options = dataclasses.replace(options, lang=lang)
        request = self._core.request_for(dataclasses.replace(command, options=options))
        async with self._admitted("question", client, request.lang):
            work = self._core.build(request)
            built = await self._fetching(
                ", ".join(request.repos), request.window.label, work, progress, cold=False
            )
        topic = (command.topics or ("",))[0]  # ``across`` names exactly one
        section = built.section(f"topic:{topic}")
        refs = (
            []
            if section is None
            else [s for s in iter_spans(section.blocks) if isinstance(s, ItemRef)]
        )
        items: list[LinkedItem] = []
        for ref in dict.fromkeys(refs):
            name = ref.repo or built.repo
            found = await self._store.items_by_number(name, [ref.number])
            one = (
                linked(found[0])
                if found
                else LinkedItem(
                    number=ref.number, kind="issue", title=ref.title, state="", url=ref.url
                )
            )
            items.append(one.model_copy(update={"repo": name, "url": ref.url}))
        shown = dataclasses.replace(built, sections=() if section is None else (section,))
        return AnswerResult(
            question=question,
            repo=built.repo,
            repos=list(built.repos) if built.several else [],
            scope=built.scope,
            lang=built.lang.value,
            topic=topic,
            window=window_info(built.window),
            writer=", ".join(built.writers),
            items=items,
            notes=list(built.notes),
            markdown=render_section(section) + "\n" if section else render_markdown(shown),
        )

    async def items(
        self,
        window: str = "today",
        *,
        repo: str | None = None,
        scope: str | None = None,
        topic: str | None = None,
        kind: Kind | None = None,
        state: State | None = None,
        query: str | None = None,
        limit: int = 50,
        progress: Progress | None = None,
        client: str = LOCAL,
    ) -> ItemsResult:
        """The issues and PRs active in ``window`` that match every filter given (of every
        repository of ``scope``, after its filters, each row naming its repository)."""
        if query is not None and len(query) > 200:
            raise UsageError("the query is longer than 200 characters")
        request = self._core.request(
            window,
            repo=repo,
            topics=(topic,) if topic is not None else None,
            **_subject(repo, scope),
        )
        filters = Filters(
            topic=request.topics[0] if topic is not None else None,
            kind=kind,
            state=state,
            query=query.strip() or None if query is not None else None,
        )
        subject = request.subject
        if subject.owners:
            raise UsageError(
                f"items lists the repositories a scope names; {subject.name or 'this scope'} "
                "has an owner/* entry: ask for its digest instead"
            )
        rows: list[ItemRow] = []
        async with self._admitted("digest", client, None):
            for name in subject.repos:
                data = await self._window(name, request.window, progress)
                if not subject.filters.empty:
                    kept = tuple(i for i in data.items if subject.filters.admits(i))
                    data = dataclasses.replace(data, items=kept)
                found = matching(data, filters)
                rows.extend(r.model_copy(update={"repo": name}) for r in found)
        if not subject.several:
            rows = [r.model_copy(update={"repo": ""}) for r in rows]
        return ItemsResult(
            repo=request.repo,
            repos=list(subject.repos) if subject.several else [],
            window=window_info(request.window),
            total=len(rows),
            items=rows[: max(1, min(limit, MAX_ITEMS))],
        )

    async def item(
        self,
        number: int,
        *,
        repo: str | None = None,
        window: str = "week",
        lang: Lang | None = None,
        progress: Progress | None = None,
        client: str = LOCAL,
    ) -> ItemResult:
        """One item, its linked fixes and its discussion in ``window``."""
        request = self._core.request(window, repo=repo)
        name = request.repo
        async with self._admitted("digest", client, lang):
            data = await self._window(name, request.window, progress)
            found = {i.number: i for i in data.items}.get(number)
            if found is None:
                mirrored = await self._store.items_by_number(name, [number])
                found = mirrored[0] if mirrored else await self._from_github(name, number)
        fixes = await self._store.items_by_number(name, list(found.fixes)) if found.is_pr else []
        return ItemResult(
            repo=name,
            item=row(found, thread_of(found, data)),
            body_excerpt=found.body_excerpt,
            fixes=[linked(i) for i in sorted(fixes, key=lambda i: i.number)],
            fixed_by=fixed_by(found, data),
            window=window_info(request.window),
            discussion=discussion(found, data, lang or self._core.default_lang),
        )

    async def _from_github(self, repo: str, number: int) -> Item:
        if self._github is None:
            raise NotFound(f"#{number} in {repo}")
        raw = await self._github.issue(repo, number)
        return item_from_api(raw, repo, web_url=self._web_url)

    async def _window(self, repo: str, window: Window, progress: Progress | None) -> WindowData:
        cold = await self._cold(repo, window)
        work = self._sync.ensure(repo, window)
        result = await self._fetching(repo, window.label, work, progress, cold=cold)
        repo = result.repo or repo  # a renamed repository: its mirror is under its new name
        return await load_window(
            self._store, repo, window, f"{self._web_url}/{repo}", result.synced_at
        )

    async def _cold(self, repo: str, window: Window) -> bool:
        """Whether the mirror does not cover ``window`` yet: answering means fetching it."""
        covered = (await self._store.get_sync_state(repo)).covered_since
        return covered is None or covered > window.start

    async def _fetching(
        self, repo: str, label: str, work: Awaitable[T], progress: Progress | None, *, cold: bool
    ) -> T:
        """``work`` awaited; ``progress`` hears that a ``cold`` fetch from GitHub starts, that
        any work still runs every few seconds (a client may wait longer for it), and its end."""
        if progress is None:
            return await work
        if cold:
            await progress(0, None, messages.SYNCING.format(repo=repo, window=label or "today"))
        task = asyncio.ensure_future(work)
        beats = 0
        while not (await asyncio.wait({task}, timeout=HEARTBEAT_S))[0]:
            beats += 1
            seconds = round(beats * HEARTBEAT_S)
            still = messages.STILL_SYNCING if cold else messages.STILL_WORKING
            await progress(beats, None, still.format(repo=repo, seconds=seconds))
        result = task.result()
        if cold or beats:
            done = messages.SYNCED.format(repo=repo) if cold else messages.DONE
            await progress(beats + 1, beats + 1, done)
        return result
