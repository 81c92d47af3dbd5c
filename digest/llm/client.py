"""One chat request to an OpenAI-compatible server, with structured output where it is supported.

The answer is requested as a strict JSON schema (OpenAI, vLLM, Ollama 0.5+). A server that
rejects that with a 400 about the response format is asked again in JSON-object mode, then with
no response format at all (the answer is then parsed tolerantly); the downgrade is remembered
for later requests. Every failure is translated into :class:`LLMFailure` with a short reason.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from digest.llm.budget import estimate_messages, estimate_tokens
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
    OBJECT = "json_object"
    TEXT = "text"


class LLMFailure(Exception):
    """A request that gave no usable answer.

    ``reason`` is one of REASONS; ``detail`` adds a status code or the like.
    """

    def __init__(self, reason: str, detail: str = "", usage: Usage | None = None) -> None:
        super().__init__(f"{reason} {detail}".strip())
        self.reason = reason
        self.detail = detail
        self.usage = usage or Usage()


REASONS = (
    "timeout",
    "rate_limited",
    "server_error",
    "unreachable",
    "rejected",
    "refused",
    "not_json",
    "truncated",
    "empty",
)


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
    """Sends chat requests for JSON answers and remembers what the server supports."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        max_output_tokens: int,
        timeout: float,
    ) -> None:
        self._client = client
        self._model = model
        self._max_output_tokens = max_output_tokens
        self._timeout = timeout
        self.mode = Mode.SCHEMA
        self._tokens_param = "max_tokens"

    @staticmethod
    def _format(mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        if mode is Mode.SCHEMA:
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        if mode is Mode.OBJECT:
            return {"type": "json_object"}
        return None

    def prompt_tokens(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> int:
        """The estimated prompt tokens of a request, the schema included when it is sent."""
        tokens = estimate_messages(messages)
        if self.mode is Mode.SCHEMA:
            tokens += estimate_tokens(json.dumps(schema, separators=(",", ":")))
        return tokens

    def _adapt(self, error: openai.APIStatusError, mode: Mode, tokens_param: str) -> bool:
        """Adjust to a server that rejected a request sent with ``mode`` and ``tokens_param``;
        whether asking again may help. Concurrent requests share one downgrade."""
        text = f"{error.message} {error.param or ''} {error.body!r}"
        if tokens_param == "max_tokens" and _TOKENS_PARAM.search(text):
            self._tokens_param = "max_completion_tokens"
            return True
        if mode is not Mode.TEXT and _FORMAT_WORDS.search(text):
            if mode is self.mode:
                self.mode = Mode.OBJECT if mode is Mode.SCHEMA else Mode.TEXT
                log.info("llm.format_downgraded", extra={"mode": self.mode.value})
            return True
        return False

    async def ask(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]) -> Reply:
        """The JSON answer to ``messages``; raises LLMFailure when there is none to use."""
        try:
            async with asyncio.timeout(self._timeout):
                return await self._ask(messages, name, schema)
        except TimeoutError as exc:
            raise LLMFailure("timeout") from exc

    async def _ask(
        self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]
    ) -> Reply:
        for _ in range(4):
            mode, tokens_param = self.mode, self._tokens_param
            options: dict[str, Any] = {tokens_param: self._max_output_tokens}
            response_format = self._format(mode, name, schema)
            if response_format is not None:
                options["response_format"] = response_format
            try:
                response = await self._client.chat.completions.create(
                    model=self._model,
                    messages=messages,  # type: ignore[arg-type]
                    timeout=self._timeout,
                    **options,
                )
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                if self._adapt(exc, mode, tokens_param):
                    continue
                raise LLMFailure("rejected", str(exc.status_code)) from exc
            except openai.APITimeoutError as exc:
                raise LLMFailure("timeout") from exc
            except openai.RateLimitError as exc:
                raise LLMFailure("rate_limited", "429") from exc
            except openai.APIStatusError as exc:
                reason = "server_error" if exc.status_code >= 500 else "rejected"
                raise LLMFailure(reason, str(exc.status_code)) from exc
            except openai.APIConnectionError as exc:
                raise LLMFailure("unreachable") from exc
            except (openai.APIError, json.JSONDecodeError) as exc:
                raise LLMFailure("server_error", "malformed response") from exc
            return _reply(response, messages)
        raise LLMFailure("rejected", "400")


def _reply(response: object, messages: list[dict[str, str]]) -> Reply:
    """The answer in a response; the SDK hands over whatever a misbehaving server sent."""
    choices = getattr(response, "choices", None)
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = getattr(choice, "message", None)
    if not isinstance(response, ChatCompletion) or choice is None or message is None:
        raise LLMFailure("server_error", "malformed response")
    content = message.content if isinstance(message.content, str) else ""
    usage = _usage(response, messages, content)
    if getattr(message, "refusal", None) or choice.finish_reason == "content_filter":
        raise LLMFailure("refused", usage=usage)
    data = extract_json(content)
    if data is None:
        if looks_refused(content):
            raise LLMFailure("refused", usage=usage)
        if choice.finish_reason == "length":
            raise LLMFailure("truncated", usage=usage)
        raise LLMFailure("not_json" if content.strip() else "empty", usage=usage)
    return Reply(content, data, usage)


def _usage(response: ChatCompletion, messages: list[dict[str, str]], content: str) -> Usage:
    """The tokens a response reports; estimated when the server does not report them."""
    reported = response.usage
    if reported is not None and isinstance(reported.prompt_tokens, int):
        return Usage(reported.prompt_tokens, reported.completion_tokens or 0)
    return Usage(estimate_messages(messages), estimate_tokens(content))
