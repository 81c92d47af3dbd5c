"""One chat request to an OpenAI-compatible server, with structured output where it is supported.

The answer is requested as a strict JSON schema (OpenAI, vLLM, Ollama 0.5+). Servers refuse a
format they lack in different ways: a 400 or 422 (vLLM, OpenAI-compatible proxies) or a 500
whose body names it (llama-cpp-python's server answers ``json_schema`` with a 500 validation
error). Any such refusal moves one step down: ``json_object`` with the schema attached
(llama-cpp-python's documented JSON-schema mode), plain ``json_object``, then no response format
at all (the answer is then parsed tolerantly).

The format is negotiated once per endpoint: what the server accepts is remembered for the
``openai`` client (the composition root builds one per endpoint, shared by the writer and the
answerer) and model, for the life of the process. Until a first request has been answered,
requests go one at a time, so a digest costs one refused request, not one per section; that
first request is sent without the client's own retries (a refusal is not transient), and
re-sent under them when it failed for a reason they would retry. Every failure is translated
into :class:`LLMFailure` with a short reason.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import weakref
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from digest.llm.budget import estimate_messages, estimate_tokens
from digest.llm.reasons import Reason
from digest.models import Usage

log = logging.getLogger(__name__)

_FORMAT_WORDS = re.compile(
    r"response_format|json_schema|json_object|structured|guided|grammar", re.I
)
_TOKENS_PARAM = re.compile(r"max_tokens", re.I)
_REFUSAL = re.compile(
    r"^\W*(?:i'?m sorry|i am sorry|sorry, |i can(?:no|')t|i cannot|i won'?t|i am unable|"
    r"i'?m unable|as an ai|抱歉|对不起|我不能|我无法|很抱歉)",
    re.I,
)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```\s*$", re.S)


class Mode(StrEnum):
    """How the answer's format is requested, from the strictest."""

    SCHEMA = "json_schema"
    OBJECT_SCHEMA = "json_object+schema"  # {"type": "json_object", "schema": ...}
    OBJECT = "json_object"
    TEXT = "text"


_WEAKER = {Mode.SCHEMA: Mode.OBJECT_SCHEMA, Mode.OBJECT_SCHEMA: Mode.OBJECT, Mode.OBJECT: Mode.TEXT}


@dataclass(slots=True)
class Endpoint:
    """What one server accepts, learnt from its answers and shared by every client of it."""

    mode: Mode = Mode.SCHEMA
    tokens_param: str = "max_tokens"
    settled: bool = False  # a request in ``mode`` got an answer other than a refusal
    refused: int = 0  # requests the server refused for their format or parameters
    _lock: asyncio.Lock | None = field(default=None, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)

    def lock(self) -> asyncio.Lock:
        """The lock that makes the first requests go one at a time (one per event loop)."""
        loop = asyncio.get_running_loop()
        if self._lock is None or self._loop is not loop:
            self._lock, self._loop = asyncio.Lock(), loop
        return self._lock


_ENDPOINTS: weakref.WeakKeyDictionary[openai.AsyncOpenAI, dict[str, Endpoint]] = (
    weakref.WeakKeyDictionary()
)


def endpoint(client: openai.AsyncOpenAI, model: str) -> Endpoint:
    """What the server behind ``client`` accepts for ``model``, as learnt in this process."""
    return _ENDPOINTS.setdefault(client, {}).setdefault(model, Endpoint())


@dataclass(slots=True)
class CallCap:
    """At most ``limit`` requests at once on one ``openai`` client, whoever sends them (the
    writer and the answerer share the composition root's client), in this process."""

    limit: int
    _slots: asyncio.Semaphore | None = field(default=None, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)

    def slots(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            self._slots, self._loop = asyncio.Semaphore(self.limit), loop
        return self._slots


_CAPS: weakref.WeakKeyDictionary[openai.AsyncOpenAI, CallCap] = weakref.WeakKeyDictionary()


def cap_calls(client: openai.AsyncOpenAI, limit: int) -> CallCap:
    """Let at most ``limit`` requests run at once on ``client`` in this process."""
    if limit < 1:
        raise ValueError(f"a cap of model requests must be positive, not {limit}")
    found = _CAPS[client] = CallCap(limit)
    return found


class LLMFailure(Exception):
    """A request that gave no usable answer.

    ``reason`` says what failed; ``detail`` adds a status code or the like.
    """

    def __init__(self, reason: Reason, detail: str = "", usage: Usage | None = None) -> None:
        super().__init__(f"{reason} {detail}".strip())
        self.reason = reason
        self.detail = detail
        self.usage = usage or Usage()


@dataclass(frozen=True, slots=True)
class Reply:
    """A model's answer: its text, the JSON object found in it and the tokens it cost."""

    content: str
    data: dict[str, Any]
    usage: Usage


def extract_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``: plain, inside a code fence or after some prose."""
    cleaned = _THINK.sub("", text).strip()
    fenced = _FENCE.match(cleaned)
    if fenced:
        cleaned = fenced.group(1).strip()
    try:
        value = json.loads(cleaned)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", cleaned):
        try:
            value, _ = decoder.raw_decode(cleaned, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def looks_refused(text: str) -> bool:
    """Whether an answer that holds no JSON reads like a refusal."""
    return bool(_REFUSAL.match(_THINK.sub("", text).strip()))


class ChatClient:
    """Sends chat requests for JSON answers, in the strictest format the server accepts."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        max_output_tokens: int,
        timeout: float,
    ) -> None:
        self._client = client
        self._first = client.with_options(max_retries=0)
        self._again = client.with_options(max_retries=max(0, client.max_retries - 1))
        self._retries = client.max_retries > 0
        self._model = model
        self.max_output_tokens = max_output_tokens
        self._timeout = timeout
        self.endpoint = endpoint(client, model)

    @property
    def mode(self) -> Mode:
        """The format requests are sent in now."""
        return self.endpoint.mode

    @staticmethod
    def _format(mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        if mode is Mode.SCHEMA:
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        if mode is Mode.OBJECT_SCHEMA:
            return {"type": "json_object", "schema": schema}
        if mode is Mode.OBJECT:
            return {"type": "json_object"}
        return None

    def prompt_tokens(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> int:
        """The estimated prompt tokens of a request, the schema included when it is sent."""
        tokens = estimate_messages(messages)
        if self.mode in (Mode.SCHEMA, Mode.OBJECT_SCHEMA):
            tokens += estimate_tokens(json.dumps(schema, separators=(",", ":")))
        return tokens

    def _adapt(self, error: openai.APIStatusError, mode: Mode, tokens_param: str) -> bool:
        """Adjust to a server that refused a request sent with ``mode`` and ``tokens_param``;
        whether asking again may help. Concurrent requests share one downgrade."""
        text = f"{error.message} {error.param or ''} {error.body!r}"
        shared = self.endpoint
        rejected = error.status_code in (400, 422)
        if rejected and tokens_param == "max_tokens" and _TOKENS_PARAM.search(text):
            shared.tokens_param = "max_completion_tokens"
            shared.refused += 1
            return True
        if mode is not Mode.TEXT and _FORMAT_WORDS.search(text):
            if mode is shared.mode:
                shared.mode = _WEAKER[mode]
                shared.refused += 1
                log.info(
                    "llm.format_downgraded",
                    extra={"mode": shared.mode.value, "status": error.status_code},
                )
            return True
        return False

    async def ask(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]) -> Reply:
        """The JSON answer to ``messages``; raises LLMFailure when there is none to use.

        Until the endpoint has answered once, requests wait for each other (the wait is not
        part of the timeout), so that a refused format is learnt from one request.
        """
        shared = self.endpoint
        if not shared.settled:
            async with shared.lock():
                if not shared.settled:
                    return await self._timed(messages, name, schema, first=True)
        return await self._timed(messages, name, schema, first=False)

    async def _timed(
        self, messages: list[dict[str, str]], name: str, schema: dict[str, Any], *, first: bool
    ) -> Reply:
        cap = _CAPS.get(self._client)
        if cap is None:
            return await self._within_timeout(messages, name, schema, first=first)
        async with cap.slots():  # the wait for a slot is not part of the timeout
            return await self._within_timeout(messages, name, schema, first=first)

    async def _within_timeout(
        self, messages: list[dict[str, str]], name: str, schema: dict[str, Any], *, first: bool
    ) -> Reply:
        try:
            async with asyncio.timeout(self._timeout):
                return await self._ask(messages, name, schema, first=first)
        except TimeoutError as exc:
            self.endpoint.settled = True
            raise LLMFailure(Reason.TIMEOUT) from exc

    async def _ask(
        self, messages: list[dict[str, str]], name: str, schema: dict[str, Any], *, first: bool
    ) -> Reply:
        shared = self.endpoint
        client = self._first if first else self._client
        for _ in range(6):
            mode, tokens_param = shared.mode, shared.tokens_param
            options: dict[str, Any] = {tokens_param: self.max_output_tokens}
            response_format = self._format(mode, name, schema)
            if response_format is not None:
                options["response_format"] = response_format
            try:
                response = await client.chat.completions.create(
                    model=self._model,
                    messages=messages,  # type: ignore[arg-type]
                    timeout=self._timeout,
                    **options,
                )
            except openai.APIStatusError as exc:
                refusal = exc.status_code in (400, 422) or exc.status_code >= 500
                if refusal and self._adapt(exc, mode, tokens_param):
                    continue
                if client is self._first and self._retries and _retried_by_client(exc):
                    client = self._again  # what the client's own retries would have done
                    continue
                shared.settled = True
                raise _failure(exc) from exc
            except openai.APIConnectionError as exc:
                if client is self._first and self._retries:
                    client = self._again
                    continue
                if isinstance(exc, openai.APITimeoutError):
                    shared.settled = True
                    raise LLMFailure(Reason.TIMEOUT) from exc
                raise LLMFailure(Reason.UNREACHABLE) from exc
            except (openai.APIError, json.JSONDecodeError) as exc:
                shared.settled = True
                raise LLMFailure(Reason.SERVER_ERROR, "malformed response") from exc
            shared.settled = True
            return _reply(response, messages)
        shared.settled = True
        raise LLMFailure(Reason.REJECTED, "400")


def _retried_by_client(error: openai.APIStatusError) -> bool:
    """Whether the ``openai`` client retries this status on its own (408, 409, 429, 5xx)."""
    return error.status_code in (408, 409, 429) or error.status_code >= 500


def _failure(error: openai.APIStatusError) -> LLMFailure:
    if isinstance(error, openai.RateLimitError):
        return LLMFailure(Reason.RATE_LIMITED, "429")
    if error.status_code >= 500:
        return LLMFailure(Reason.SERVER_ERROR, str(error.status_code))
    return LLMFailure(Reason.REJECTED, str(error.status_code))


def _reply(response: object, messages: list[dict[str, str]]) -> Reply:
    """The answer in a response; the SDK hands over whatever a misbehaving server sent."""
    choices = getattr(response, "choices", None)
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = getattr(choice, "message", None)
    if not isinstance(response, ChatCompletion) or choice is None or message is None:
        raise LLMFailure(Reason.SERVER_ERROR, "malformed response")
    content = message.content if isinstance(message.content, str) else ""
    usage = _usage(response, messages, content)
    if getattr(message, "refusal", None) or choice.finish_reason == "content_filter":
        raise LLMFailure(Reason.REFUSED, usage=usage)
    data = extract_json(content)
    if choice.finish_reason == "length" and (data is None or _cut(content)):
        raise LLMFailure(Reason.TRUNCATED, usage=usage)  # an inner object is not the answer
    if data is None:
        if looks_refused(content):
            raise LLMFailure(Reason.REFUSED, usage=usage)
        raise LLMFailure(Reason.NOT_JSON if content.strip() else Reason.EMPTY, usage=usage)
    return Reply(content, data, usage)


def _cut(text: str) -> bool:
    """Whether the last JSON object in ``text`` was left open (the answer hit its token limit)."""
    cleaned = _THINK.sub("", text).strip()
    start = cleaned.find("{")
    if start < 0:
        return False
    try:
        json.JSONDecoder().raw_decode(cleaned, start)
    except ValueError:
        return True
    return False


def _usage(response: ChatCompletion, messages: list[dict[str, str]], content: str) -> Usage:
    """The tokens a response reports; estimated when the server does not report them."""
    reported = response.usage
    if reported is not None and isinstance(reported.prompt_tokens, int):
        return Usage(reported.prompt_tokens, reported.completion_tokens or 0)
    return Usage(estimate_messages(messages), estimate_tokens(content))
