"""Answering a question: understand it, refresh the mirror, find the items, write the answer."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from digest.analysis.types import WindowData
from digest.ask.question import Question, RepoInfo, parse_question
from digest.ask.retrieve import Found, find
from digest.ask.template import template_answer
from digest.builder import load_window
from digest.errors import RateLimited, SourceUnavailable
from digest.i18n import t
from digest.mirror.store import Store, Sync
from digest.models import Answer, Lang, Topic

log = logging.getLogger(__name__)


class AnswerWriter(Protocol):
    """Writes an answer in its own words; returns ``fallback`` (with a note) when it cannot."""

    name: str

    async def write(
        self, question: Question, found: Found, data: WindowData, fallback: Answer
    ) -> Answer: ...


class Asker:
    """Answers questions about the mirrored repositories."""

    def __init__(
        self,
        *,
        store: Store,
        clock: Callable[[], datetime],
        topics: Sequence[Topic],
        repos: Sequence[RepoInfo] = (),
        default_repo: str,
        sync: Sync | None = None,
        writer: AnswerWriter | None = None,
        web_url: str = "https://github.com",
        default_lang: Lang = Lang.EN,
    ) -> None:
        self._store = store
        self._clock = clock
        self._topics = tuple(topics)
        self._repos = tuple(repos)
        self._default_repo = default_repo
        self._sync = sync
        self._writer = writer
        self._web_url = web_url.rstrip("/")
        self._default_lang = default_lang

    def understand(
        self, text: str, *, repo: str | None = None, lang: Lang | None = None
    ) -> Question:
        """How ``text`` is understood; never raises, whatever the text."""
        return parse_question(
            text,
            now=self._clock(),
            topics=self._topics,
            repos=self._repos,
            default_repo=self._default_repo,
            repo=repo,
            lang=lang,
            default_lang=self._default_lang,
        )

    async def ask(self, text: str, *, repo: str | None = None, lang: Lang | None = None) -> Answer:
        """The answer to ``text``, whatever it says.

        Raises only for a broken store, an unknown repository, or GitHub failing while the
        mirror holds nothing of the window.
        """
        question = self.understand(text, repo=repo, lang=lang)
        window = question.when.window
        notes = list(question.notes)
        synced_at: datetime | None = None
        if self._sync is not None:
            try:
                result = await self._sync.ensure(question.repo, window)
            except (RateLimited, SourceUnavailable) as exc:
                state = await self._store.get_sync_state(question.repo)
                covered = state.covered_since
                if covered is None or covered >= window.end:
                    raise  # the mirror has nothing for this window: say GitHub failed
                log.warning("ask.sync_failed", extra={"repo": question.repo, "error": str(exc)})
                synced_at = state.synced_at
                notes.append(_stale_note(exc, synced_at, question.lang))
            else:
                synced_at = result.synced_at
                notes.extend(note.text(question.lang) for note in result.notes)
                if result.repo and result.repo != question.repo:  # renamed: its mirror moved
                    question = replace(question, repo=result.repo)
        else:
            synced_at = (await self._store.get_sync_state(question.repo)).synced_at
        repo_url = f"{self._web_url}/{question.repo}"
        data = await load_window(self._store, question.repo, window, repo_url, synced_at)
        found = find(data, question)
        answer = template_answer(
            question, found, data, topics=self._topics, default_repo=self._default_repo, notes=notes
        )
        if self._writer is not None and found.hits:
            answer = await self._writer.write(question, found, data, answer)
        log.info(
            "ask.answered",
            extra={
                "repo": question.repo,
                "topic": answer.topic,
                "terms": list(question.terms),
                "window_start": window.start.isoformat(),
                "window_end": window.end.isoformat(),
                "items": len(found.hits),
                "writer": answer.writer,
            },
        )
        return answer


def _stale_note(error: Exception, synced_at: datetime | None, lang: Lang) -> str:
    when = synced_at.strftime("%Y-%m-%d %H:%M UTC") if synced_at else "?"
    return t("note.stale", lang, error=error, when=when)
