"""The one loop of every model-written text: ask, validate, check, retry once, or fall back.

The LLM writer (one run per section) and the LLM answerer (one per question) both go through
:func:`ask_checked`: the model's JSON is validated against the answer's pydantic model, then
checked (grounding: only the data's items and people; substance: not an echo of the prompt, in
the right language, of a sensible length, and what the kind of text requires). An answer with
problems is asked for once more with the problems stated; a second failure, like any request
failure, ends in a :class:`Fallback` with one :class:`~digest.llm.reasons.Reason`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from digest.llm.budget import Ledger
from digest.llm.client import ChatClient, LLMFailure
from digest.llm.prompts import Message, retry
from digest.llm.reasons import Reason
from digest.llm.substance import Problem
from digest.models import Usage

A = TypeVar("A", bound=BaseModel)


def add(a: Usage, b: Usage) -> Usage:
    """The sum of two usages."""
    return Usage(a.prompt_tokens + b.prompt_tokens, a.completion_tokens + b.completion_tokens)


class Fallback(LLMFailure):
    """No answer to keep, after every attempt: ``reason`` says why, ``usage`` is what the
    attempts spent (a request's failure, or an answer that did not pass the checks)."""


@dataclass(frozen=True, slots=True)
class Checked(Generic[A]):
    """An answer that passed every check, and the tokens it cost."""

    answer: A
    usage: Usage


@dataclass(frozen=True, slots=True)
class Budget:
    """The limits of one text's requests: the digest's ledger, a per-request cap, a bound on
    concurrent requests. The answerer asks without a ledger."""

    ledger: Ledger | None = None
    request_tokens: int | None = None  # prompt and answer of one request
    semaphore: asyncio.Semaphore | None = None


@contextlib.asynccontextmanager
async def _bounded(semaphore: asyncio.Semaphore | None) -> AsyncIterator[None]:
    if semaphore is None:
        yield
    else:
        async with semaphore:
            yield


async def ask_checked(
    chat: ChatClient,
    messages: list[Message],
    *,
    name: str,
    model: type[A],
    schema: dict[str, Any],
    check: Callable[[A], Sequence[Problem]],
    budget: Budget = Budget(),
) -> Checked[A]:
    """The model's answer to ``messages``, validated and checked; raises :class:`Fallback`."""
    usage = Usage()
    estimate = chat.prompt_tokens(messages, schema)
    output = chat.max_output_tokens
    for attempt in (1, 2):
        reserved = estimate + output
        if budget.ledger is not None and not budget.ledger.reserve(reserved):
            raise Fallback(Reason.BUDGET, "digest budget spent", usage)
        try:
            async with _bounded(budget.semaphore):
                reply = await chat.ask(messages, name, schema)
        except LLMFailure as failure:
            if budget.ledger is not None:
                budget.ledger.settle(reserved, failure.usage.total or estimate)
            raise Fallback(failure.reason, failure.detail, add(usage, failure.usage)) from failure
        usage = add(usage, reply.usage)
        if budget.ledger is not None:
            used = max(estimate, reply.usage.prompt_tokens) + reply.usage.completion_tokens
            budget.ledger.settle(reserved, used)
        try:
            answer = model.model_validate(reply.data)
        except ValidationError as exc:
            raise Fallback(Reason.SCHEMA, f"{exc.error_count()} errors", usage) from exc
        problems = list(check(answer))
        if not problems:
            return Checked(answer, usage)
        if attempt == 2:
            detail = "; ".join(p.text for p in problems[:5])
            raise Fallback(problems[0].reason, detail, usage)
        again = retry(messages, reply.content, [p.text for p in problems])
        if (
            budget.request_tokens is not None
            and chat.prompt_tokens(again, schema) + output > budget.request_tokens
        ):
            again = retry(messages, None, [p.text for p in problems])
        messages = again
        estimate = chat.prompt_tokens(messages, schema)
    raise AssertionError("unreachable")
