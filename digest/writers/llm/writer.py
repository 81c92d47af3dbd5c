"""The LLM writer: narrative sections from an OpenAI-compatible model, grounded and budgeted.

Every section starts as the template writer's; each narrative section (a kind of
``kinds.py``) is then asked of the model, all of them concurrently (bounded), through the one
loop of ``digest.llm.loop``. A section whose request fails, or whose answer does not parse or
fails a check (grounding, substance) after one retry, keeps the template's text; the digest
says so in a note, and the section records why.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace

import openai
from pydantic import BaseModel

from digest.analysis.types import Analysis
from digest.llm import prompts, substance
from digest.llm.budget import Ledger, plan
from digest.llm.cards import Card, fit
from digest.llm.client import ChatClient
from digest.llm.grounding import Grounds, given_key
from digest.llm.loop import Budget, Fallback, add, ask_checked
from digest.llm.prompts import Message
from digest.llm.reasons import Reason, note
from digest.llm.substance import Problem, Prompt
from digest.models import Block, Lang, Section, Usage, iter_spans
from digest.writers.base import Writer, Written
from digest.writers.llm.answers import Numbered, Viewpoint
from digest.writers.llm.blocks import Builder, nodes, texts, visible
from digest.writers.llm.inputs import SectionInput, quiet
from digest.writers.llm.kinds import Given, SectionKind, kind_of

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Outcome:
    section: Section  # the model's, or the template's when ``reason`` is set
    usage: Usage
    reason: Reason | None = None


class LLMWriter:
    """Writes the narrative sections with a model; counts and appendix come from the data."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        fallback: Writer,
        concurrency: int = 8,
        section_tokens: int = 6000,
        digest_tokens: int = 28000,
        max_output_tokens: int = 1200,
        timeout: float = 60.0,
    ) -> None:
        self.name = f"llm:{model}"
        self._fallback = fallback
        self._chat = ChatClient(client, model, max_output_tokens=max_output_tokens, timeout=timeout)
        self._concurrency = max(1, concurrency)
        self._section_tokens = section_tokens
        self._digest_tokens = digest_tokens
        self._max_output_tokens = max_output_tokens

    async def write(self, analysis: Analysis, lang: Lang) -> Written:
        """Every section for ``lang``: the model's where it succeeds, the template's elsewhere."""
        started = time.monotonic()
        base = await self._fallback.write(analysis, lang)
        asked: dict[str, tuple[SectionKind[BaseModel], SectionInput]] = {}
        for section in base.sections:
            kind = kind_of(section.id)
            if kind is None or quiet(analysis):
                continue
            found = kind.inputs(analysis, section.id, lang)
            if found is not None:
                asked[section.id] = (kind, found)
        limits = plan(
            {sid: kind.weight for sid, (kind, _) in asked.items()},
            section_tokens=self._section_tokens,
            digest_tokens=self._digest_tokens,
            max_output_tokens=self._max_output_tokens,
        )
        run = _Run(
            name=self.name,
            chat=self._chat,
            repo=analysis.data.repo,
            lang=lang,
            grounds=Grounds.of(analysis.data, analysis.items),
            budget=Budget(
                Ledger(self._digest_tokens),
                self._section_tokens,
                asyncio.Semaphore(self._concurrency),
            ),
        )
        templates = {section.id: section for section in base.sections}
        outcomes = await asyncio.gather(
            *(
                run.section(kind, found, templates[sid], limits[sid])
                for sid, (kind, found) in asked.items()
            )
        )
        by_id = {outcome.section.id: outcome for outcome in outcomes}
        usage = Usage()
        notes = list(base.notes)
        for outcome in outcomes:
            usage = add(usage, outcome.usage)
            if outcome.reason is not None:
                notes.append(note(outcome.section.title, outcome.reason, lang))
        sections = tuple(by_id[s.id].section if s.id in by_id else s for s in base.sections)
        log.info(
            "llm.digest_written",
            extra={
                "model": self.name,
                "sections": len(asked),
                "fallbacks": sum(1 for o in outcomes if o.reason is not None),
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "seconds": round(time.monotonic() - started, 3),
            },
        )
        return Written(sections=sections, usage=usage, notes=tuple(notes))


@dataclass(slots=True)
class _Run:
    """The shared state of one ``write``: the grounds, the budget and the concurrency bound."""

    name: str
    chat: ChatClient
    repo: str
    lang: Lang
    grounds: Grounds
    budget: Budget

    async def section(
        self, kind: SectionKind[BaseModel], found: SectionInput, template: Section, limit: int
    ) -> _Outcome:
        """The model's section, or the template's with the reason it was kept."""
        started = time.monotonic()
        try:
            blocks, usage = await self._write(kind, found, limit)
        except Fallback as failure:
            log.warning(
                "llm.section_fallback",
                extra={
                    "section": found.section_id,
                    "reason": failure.reason.value,
                    "detail": failure.detail,
                    "prompt_tokens": failure.usage.prompt_tokens,
                    "completion_tokens": failure.usage.completion_tokens,
                    "seconds": round(time.monotonic() - started, 3),
                },
            )
            kept = replace(template, fallback=failure.reason.value)
            return _Outcome(kept, failure.usage, failure.reason)
        log.info(
            "llm.section_written",
            extra={
                "section": found.section_id,
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "seconds": round(time.monotonic() - started, 3),
            },
        )
        section = Section(template.id, template.title, tuple(blocks), writer=self.name)
        return _Outcome(section, usage)

    def _messages(
        self, kind: SectionKind[BaseModel], found: SectionInput, cards: list[Card]
    ) -> list[Message]:
        return [
            {
                "role": "system",
                "content": prompts.system(self.repo, self.lang, items=bool(cards)),
            },
            {
                "role": "user",
                "content": prompts.user(
                    found.section_id, kind.task, kind.schema, found.facts, cards
                ),
            },
        ]

    async def _write(
        self, kind: SectionKind[BaseModel], found: SectionInput, limit: int
    ) -> tuple[list[Block], Usage]:
        cards = fit(
            found.sources,
            self.grounds,
            limit,
            lambda c: self.chat.prompt_tokens(self._messages(kind, found, c), kind.schema),
            keep=found.keep,
        )
        messages = self._messages(kind, found, cards)
        estimate = self.chat.prompt_tokens(messages, kind.schema)
        if (found.sources and not cards) or estimate > limit:
            raise Fallback(Reason.BUDGET, f"section needs {estimate} tokens, has {limit}")
        keys = (self.grounds.key(int(card["number"]), str(card.get("repo", ""))) for card in cards)
        given = Given(found, frozenset(key for key in keys if key is not None), self.grounds)
        echo = Prompt.of(kind.schema, [messages[0]["content"], kind.task])

        def check(answer: BaseModel) -> list[Problem]:
            said = texts(answer)
            problems = substance.form(said, prompt=echo, grounds=self.grounds, lang=self.lang)
            problems += _structure(answer, given)
            problems += kind.checks(answer, given)
            bounds = kind.length
            return problems + substance.length(
                said, least=bounds.least, most=bounds.most, field_most=bounds.field_most
            )

        checked = await ask_checked(
            self.chat,
            messages,
            name=f"section_{kind.name}",
            model=kind.answer,
            schema=kind.schema,
            check=check,
            budget=self.budget,
        )
        builder = Builder(self.grounds, self.lang, given.numbers)
        blocks = kind.blocks(builder, checked.answer, found)
        if not visible(iter_spans(tuple(blocks))):
            raise Fallback(Reason.EMPTY, "", checked.usage)
        return blocks, checked.usage


def _structure(answer: BaseModel, given: Given) -> list[Problem]:
    """Problems with the answer's fields: numbers not among the items given, unknown logins."""
    problems: list[Problem] = []
    for value in nodes(answer):
        if isinstance(value, Numbered) and given_key(given.numbers, value.number) is None:
            problems.append(
                Problem(
                    Reason.UNGROUNDED, f"#{value.number} is not one of the items in <item_data>"
                )
            )
        if isinstance(value, Viewpoint) and given.grounds.login(value.login) is None:
            problems.append(
                Problem(Reason.UNGROUNDED, f"@{value.login} is not a person in the data")
            )
    return problems
