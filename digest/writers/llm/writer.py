"""The LLM writer: narrative sections from an OpenAI-compatible model, grounded and budgeted.

Every section starts as the template writer's; each narrative section is then asked of the
model, all of them concurrently (bounded). A section whose answer fails, does not parse, or is
still ungrounded after one retry keeps the template's text, and the digest says so in a note.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import openai
from pydantic import BaseModel, ValidationError

from digest.analysis.types import Analysis
from digest.i18n import norm_lang
from digest.llm import prompts
from digest.llm.budget import Ledger, plan
from digest.llm.cards import Card, fit
from digest.llm.client import ChatClient, LLMFailure
from digest.llm.grounding import Grounds
from digest.llm.prompts import Message
from digest.llm.schema import strict_schema
from digest.models import Block, Section, Usage, iter_spans
from digest.writers.base import Writer, Written
from digest.writers.llm.blocks import Builder, nodes, texts, visible
from digest.writers.llm.inputs import WEIGHTS, SectionInput, section_input
from digest.writers.llm.schemas import (
    ANSWERS,
    ActivityAnswer,
    HotAnswer,
    KeyChangesAnswer,
    Numbered,
    SummaryAnswer,
    TopicAnswer,
    TrendsAnswer,
    Viewpoint,
    WatchListAnswer,
    kind_of,
)

log = logging.getLogger(__name__)

_SCHEMAS = {kind: strict_schema(model) for kind, model in ANSWERS.items()}

_REASONS = {
    "en": {
        "timeout": "the model timed out",
        "rate_limited": "the model server is rate limited",
        "server_error": "the model server failed",
        "unreachable": "the model server is unreachable",
        "rejected": "the model server rejected the request",
        "refused": "the model declined",
        "not_json": "the model's answer did not parse",
        "truncated": "the model's answer was cut off",
        "empty": "the model's answer was empty",
        "schema": "the model's answer did not match the expected shape",
        "ungrounded": "the model cited items or people not in the data",
        "budget": "the token budget was spent",
    },
    "zh": {
        "timeout": "模型超时",
        "rate_limited": "模型服务限流",
        "server_error": "模型服务出错",
        "unreachable": "无法连接模型服务",
        "rejected": "模型服务拒绝了请求",
        "refused": "模型拒绝回答",
        "not_json": "模型输出无法解析",
        "truncated": "模型输出被截断",
        "empty": "模型输出为空",
        "schema": "模型输出格式不符",
        "ungrounded": "模型引用了数据中不存在的条目或用户",
        "budget": "token 预算已用完",
    },
}


def note(title: str, reason: str, lang: str) -> str:
    """The visible note of a section that fell back to the template."""
    if lang == "zh":
        return f"{title}：{_REASONS['zh'].get(reason, reason)}，本节由模板生成"
    return f"{title}: {_REASONS['en'].get(reason, reason)}; this section was written from the data"


def add(a: Usage, b: Usage) -> Usage:
    """The sum of two usages."""
    return Usage(a.prompt_tokens + b.prompt_tokens, a.completion_tokens + b.completion_tokens)


@dataclass(frozen=True, slots=True)
class _Outcome:
    section: Section  # the model's, or the template's when ``reason`` is set
    usage: Usage
    reason: str | None = None


class _Fallback(Exception):
    """A section that keeps the template's text; ``usage`` is what it spent trying."""

    def __init__(self, reason: str, detail: str = "", usage: Usage | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail
        self.usage = usage or Usage()


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

    async def write(self, analysis: Analysis, lang: str) -> Written:
        """Every section for ``lang``: the model's where it succeeds, the template's elsewhere."""
        started = time.monotonic()
        base = await self._fallback.write(analysis, lang)
        lang = norm_lang(lang)
        inputs: dict[str, SectionInput] = {}
        for section in base.sections:
            if kind_of(section.id) in ANSWERS:
                found = section_input(section.id, analysis, lang)
                if found is not None:
                    inputs[section.id] = found
        limits = plan(
            {sid: WEIGHTS[found.kind] for sid, found in inputs.items()},
            section_tokens=self._section_tokens,
            digest_tokens=self._digest_tokens,
            max_output_tokens=self._max_output_tokens,
        )
        run = _Run(
            name=self.name,
            chat=self._chat,
            max_output_tokens=self._max_output_tokens,
            section_tokens=self._section_tokens,
            repo=analysis.data.repo,
            lang=lang,
            grounds=Grounds.of(analysis.data),
            ledger=Ledger(self._digest_tokens),
            semaphore=asyncio.Semaphore(self._concurrency),
        )
        templates = {section.id: section for section in base.sections}
        outcomes = await asyncio.gather(
            *(run.section(found, templates[sid], limits[sid]) for sid, found in inputs.items())
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
                "sections": len(inputs),
                "fallbacks": sum(1 for o in outcomes if o.reason is not None),
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "seconds": round(time.monotonic() - started, 3),
            },
        )
        return Written(sections=sections, usage=usage, notes=tuple(notes))


@dataclass(slots=True)
class _Run:
    """The shared state of one ``write``: the budget ledger and the concurrency bound."""

    name: str
    chat: ChatClient
    max_output_tokens: int
    section_tokens: int
    repo: str
    lang: str
    grounds: Grounds
    ledger: Ledger
    semaphore: asyncio.Semaphore

    async def section(self, found: SectionInput, template: Section, limit: int) -> _Outcome:
        """The model's section, or the template's with the reason it was kept."""
        try:
            blocks, usage = await self._write(found, limit)
        except _Fallback as failure:
            log.warning(
                "llm.section_fallback",
                extra={
                    "section": found.section_id,
                    "reason": failure.reason,
                    "detail": failure.detail,
                },
            )
            return _Outcome(template, failure.usage, failure.reason)
        section = Section(template.id, template.title, tuple(blocks), writer=self.name)
        return _Outcome(section, usage)

    def _messages(self, found: SectionInput, cards: list[Card]) -> list[Message]:
        schema = _SCHEMAS[found.kind]
        return prompts.messages(
            self.repo, self.lang, found.section_id, found.kind, schema, found.facts, cards
        )

    async def _write(self, found: SectionInput, limit: int) -> tuple[list[Block], Usage]:
        schema = _SCHEMAS[found.kind]
        cards = fit(
            found.sources,
            self.grounds,
            limit,
            lambda c: self.chat.prompt_tokens(self._messages(found, c), schema),
            keep=found.keep,
        )
        messages = self._messages(found, cards)
        estimate = self.chat.prompt_tokens(messages, schema)
        if (found.sources and not cards) or estimate > limit:
            raise _Fallback("budget", f"section needs {estimate} tokens, has {limit}")
        given = {int(card["number"]) for card in cards}
        usage = Usage()
        for attempt in (1, 2):
            reserved = estimate + self.max_output_tokens
            if not self.ledger.reserve(reserved):
                raise _Fallback("budget", "digest budget spent", usage)
            try:
                async with self.semaphore:
                    reply = await self.chat.ask(messages, f"section_{found.kind}", schema)
            except LLMFailure as failure:
                self.ledger.settle(reserved, failure.usage.total or estimate)
                usage = add(usage, failure.usage)
                raise _Fallback(failure.reason, failure.detail, usage) from failure
            usage = add(usage, reply.usage)
            used = max(estimate, reply.usage.prompt_tokens) + reply.usage.completion_tokens
            self.ledger.settle(reserved, used)
            try:
                answer = ANSWERS[found.kind].model_validate(reply.data)
            except ValidationError as exc:
                raise _Fallback("schema", f"{exc.error_count()} errors", usage) from exc
            problems = self.grounds.problems(texts(answer))
            problems += _structure(answer, given, self.grounds)
            if not problems:
                blocks = _blocks(Builder(self.grounds, self.lang), answer, found)
                if not visible(iter_spans(tuple(blocks))):
                    raise _Fallback("empty", "", usage)
                return blocks, usage
            if attempt == 2:
                raise _Fallback("ungrounded", "; ".join(problems[:5]), usage)
            retry = prompts.retry(messages, reply.content, problems)
            if (
                self.chat.prompt_tokens(retry, schema) + self.max_output_tokens
                > self.section_tokens
            ):
                retry = prompts.retry(messages, None, problems)
            messages = retry
            estimate = self.chat.prompt_tokens(messages, schema)
        raise AssertionError("unreachable")


def _structure(answer: BaseModel, given: set[int], grounds: Grounds) -> list[str]:
    """Problems with the answer's fields: numbers not among the items given, unknown logins."""
    problems: list[str] = []
    for value in nodes(answer):
        if isinstance(value, Numbered) and value.number not in given:
            problems.append(f"#{value.number} is not one of the items in <item_data>")
        if isinstance(value, Viewpoint) and grounds.login(value.login) is None:
            problems.append(f"@{value.login} is not a person in the data")
    return problems


def _blocks(builder: Builder, answer: BaseModel, found: SectionInput) -> list[Block]:
    if isinstance(answer, SummaryAnswer):
        return builder.summary(answer)
    if isinstance(answer, TopicAnswer):
        groups = {s.item.number: str(s.extra.get("group", "")) for s in found.sources}
        return builder.topic(answer, groups)
    if isinstance(answer, HotAnswer):
        return builder.hot(answer)
    if isinstance(answer, TrendsAnswer):
        return builder.trends(answer)
    if isinstance(answer, KeyChangesAnswer):
        return builder.key_changes(answer)
    if isinstance(answer, ActivityAnswer):
        return builder.activity(answer)
    if isinstance(answer, WatchListAnswer):
        return builder.watch(answer)
    return []
