"""A model-written answer, grounded like the LLM writer's sections, else the template answer.

The model gets the question and the found items as delimited, untrusted data (under the rules
every request shares, ``digest.llm.prompts``), and writes a short answer and one line per item.
It goes through the writer's loop (``digest.llm.loop``): every ``#number`` and ``@login`` must be
one of the found items and their people, the answer must cite one of them, be in the question's
language, and echo nothing of the prompt; an answer that fails is asked for once more, then the
template answer is kept with a visible note.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import openai
from pydantic import BaseModel, ConfigDict, Field

from digest.analysis.types import WindowData
from digest.ask.question import Question
from digest.ask.retrieve import Found
from digest.ask.template import MAX_ITEMS
from digest.i18n import t
from digest.llm import prompts, substance
from digest.llm.cards import Card, Source, fit
from digest.llm.client import ChatClient
from digest.llm.grounding import Grounds
from digest.llm.loop import Fallback, ask_checked
from digest.llm.prompts import Message
from digest.llm.reasons import Reason
from digest.llm.reasons import note as fallback_note
from digest.llm.schema import Number, strict_schema
from digest.llm.substance import Problem, Prompt
from digest.models import Answer, Block, BulletList, Comment, Inline, ItemRef, Paragraph, Text

log = logging.getLogger(__name__)

_TASK = (
    "Answer the question in <question> in 2-4 sentences, from the items in <item_data> (they "
    "are the items of the window that match the question, best first; <facts> has the exact "
    "counts), citing them by #number. Then write one sentence for each item in <item_data> "
    "saying what it does or reports and where it stands."
)
_LENGTH = {"least": 40, "most": 5000, "field_most": 1500}


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    number: Number = Field(description="the item's number, from the item data")
    line: str = Field(description="one sentence: what this item does or reports")


class AskReply(BaseModel):
    """The model's answer."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    answer: str = Field(description="2-4 sentences answering the question, citing items as #N")
    items: list[_Line]


_SCHEMA = strict_schema(AskReply)


def _grounds(found: Found, data: WindowData, numbers: Sequence[int]) -> Grounds:
    """Only the shown items and their people may be cited."""
    shown = set(numbers)
    items = {h.item.number: h.item for h in found.hits if h.item.number in shown}
    logins: dict[str, str] = {}
    people = [i.author for i in items.values()] + [
        c.author
        for c in data.comments
        if c.item_number in items and data.window.contains(c.created_at)
    ]
    for login in people:
        logins.setdefault(login.lower(), login)
    return Grounds.make(items.values(), logins, data.repo_url)


def _facts(question: Question, found: Found) -> dict[str, Any]:
    groups: dict[str, int] = {}
    for hit in found.hits:
        groups[hit.group] = groups.get(hit.group, 0) + 1
    return {
        "repository": question.repo,
        "window": question.when.en,
        "topic": question.topic.title_en if question.topic else None,
        "search_terms": list(question.terms),
        "filters": sorted(k.value for k in question.kinds),
        "items_found": len(found.hits),
        "items_shown": min(len(found.hits), MAX_ITEMS),
        "by_group": groups,
    }


def _texts(reply: AskReply) -> list[str]:
    return [reply.answer, *(line.line for line in reply.items)]


class LLMAnswerer:
    """Writes answers with a model behind any OpenAI-compatible endpoint."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        prompt_tokens: int = 5000,
        max_output_tokens: int = 1200,
        timeout: float = 60.0,
    ) -> None:
        self.name = f"llm:{model}"
        self._chat = ChatClient(client, model, max_output_tokens=max_output_tokens, timeout=timeout)
        self._prompt_tokens = prompt_tokens

    def _messages(self, question: Question, found: Found, cards: list[Card]) -> list[Message]:
        user = prompts.user(
            "ask", _TASK, _SCHEMA, _facts(question, found), cards, question=question.text
        )
        system = prompts.system(question.repo, question.lang, question=True)
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]

    async def write(
        self, question: Question, found: Found, data: WindowData, fallback: Answer
    ) -> Answer:
        """The model's answer, or ``fallback`` with a note saying why it was kept."""
        shown = found.hits[:MAX_ITEMS]
        grounds = _grounds(found, data, [h.item.number for h in shown])
        by_item: dict[int, list[Comment]] = {}
        for comment in data.comments:
            if comment.item_key in grounds.items and data.window.contains(comment.created_at):
                by_item.setdefault(comment.item_number, []).append(comment)
        sources = [
            Source(h.item, tuple(by_item.get(h.item.number, ())), {"group": h.group}) for h in shown
        ]
        cards = fit(
            sources,
            grounds,
            self._prompt_tokens,
            lambda c: self._chat.prompt_tokens(self._messages(question, found, c), _SCHEMA),
            keep=min(len(sources), 5),
        )
        if not cards:
            return self._fallback(fallback, question, Reason.BUDGET)
        given = {int(c["number"]) for c in cards}
        messages = self._messages(question, found, cards)
        echo = Prompt.of(_SCHEMA, [messages[0]["content"], _TASK])

        def check(reply: AskReply) -> list[Problem]:
            said = _texts(reply)
            problems = substance.form(said, prompt=echo, grounds=grounds, lang=question.lang)
            problems += [
                Problem(Reason.UNGROUNDED, f"#{line.number} is not one of the items in <item_data>")
                for line in reply.items
                if line.number not in given
            ]
            if not reply.answer:
                problems.append(Problem(Reason.EMPTY, "the answer field is empty"))
            cited = {line.number for line in reply.items} | {k.number for k in grounds.cites(said)}
            problems += substance.cites(cited & given, given)
            return problems + substance.length(said, **_LENGTH)

        try:
            checked = await ask_checked(
                self._chat, messages, name="answer", model=AskReply, schema=_SCHEMA, check=check
            )
        except Fallback as failure:
            log.warning(
                "ask.llm_fallback",
                extra={"reason": failure.reason.value, "detail": failure.detail},
            )
            return self._fallback(fallback, question, failure.reason)
        return self._answer(fallback, grounds, checked.answer)

    def _fallback(self, fallback: Answer, question: Question, reason: Reason) -> Answer:
        note = fallback_note(t("answer.title", question.lang), reason, question.lang)
        return replace(fallback, notes=(*fallback.notes, note))

    def _answer(self, fallback: Answer, grounds: Grounds, reply: AskReply) -> Answer:
        lines: dict[int, tuple[Inline, ...]] = {}
        for line in reply.items:
            if line.line and line.number not in lines:
                lines[line.number] = grounds.spans(line.line)
        blocks: list[Block] = [Paragraph(grounds.spans(reply.answer))]
        for block in fallback.blocks[1:]:
            if isinstance(block, BulletList):
                block = BulletList(tuple(_entry(entry, lines) for entry in block.items))
            blocks.append(block)
        return replace(fallback, blocks=tuple(blocks), writer=self.name)


def _entry(entry: tuple[Inline, ...], lines: dict[int, tuple[Inline, ...]]) -> tuple[Inline, ...]:
    head = entry[0] if entry else None
    if isinstance(head, ItemRef) and head.number in lines:
        return (head, Text(" — "), *lines[head.number])
    return entry
