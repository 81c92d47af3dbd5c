"""A fake OpenAI-compatible chat server on 127.0.0.1: real HTTP, scripted, recording requests.

It serves ``POST /v1/chat/completions``. By default it plays a well-behaved model that answers in
the requested JSON shape and cites only the items and people of the data it was given. Tests
script other behaviours per section (bad JSON, hallucinations, refusals, errors, slowness) and
read back what was sent.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

_SECTION = re.compile(r'<task section="([^"]+)">')
_BLOCK = r"<{tag}>\n(.*?)\n</{tag}>"


def count_tokens(text: str) -> int:
    """The fake's own token count: a quarter token a UTF-8 byte, like a BPE on average."""
    return math.ceil(len(text.encode("utf-8")) / 4)


@dataclass
class ChatRequest:
    """One request the fake received."""

    body: dict[str, Any]
    headers: Mapping[str, str]
    started: float
    finished: float | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def system(self) -> str:
        return "\n".join(str(m["content"]) for m in self.messages if m["role"] == "system")

    @property
    def task(self) -> str:
        """The first user message: the task and its data (a retry adds more messages)."""
        return next((str(m["content"]) for m in self.messages if m["role"] == "user"), "")

    @property
    def text(self) -> str:
        return "\n".join(str(m.get("content") or "") for m in self.messages)

    @property
    def section(self) -> str:
        match = _SECTION.search(self.task)
        return match.group(1) if match else ""

    @property
    def lang(self) -> str:
        return "zh" if "简体中文" in self.system else "en"

    @property
    def is_retry(self) -> bool:
        return sum(m["role"] == "user" for m in self.messages) > 1

    def _block(self, tag: str) -> str | None:
        match = re.search(_BLOCK.format(tag=tag), self.task, re.S)
        return match.group(1) if match else None

    @property
    def cards(self) -> list[dict[str, Any]]:
        block = self._block("item_data")
        return [json.loads(line) for line in block.splitlines()] if block else []

    @property
    def facts(self) -> dict[str, Any]:
        block = self._block("facts")
        return json.loads(block) if block else {}

    @property
    def answer_format(self) -> Any:
        block = self._block("answer_format")
        return json.loads(block) if block else {}

    @property
    def response_format(self) -> str | None:
        value = self.body.get("response_format")
        return value.get("type") if isinstance(value, dict) else None

    @property
    def response_schema(self) -> bool:
        """Whether the request carries its answer's JSON schema (in any format)."""
        value = self.body.get("response_format")
        if not isinstance(value, dict):
            return False
        return "schema" in value or "schema" in value.get("json_schema", {})

    @property
    def max_tokens(self) -> int | None:
        value = self.body.get("max_tokens", self.body.get("max_completion_tokens"))
        return int(value) if value is not None else None

    @property
    def prompt_tokens(self) -> int:
        return sum(count_tokens(str(m.get("content") or "")) for m in self.messages)


@dataclass(frozen=True)
class Answer:
    """A 200 answer: ``content`` as the assistant message, after ``delay`` seconds."""

    content: str | None
    refusal: str | None = None
    finish_reason: str = "stop"
    delay: float = 0.0
    usage: bool = True


@dataclass(frozen=True)
class Failure:
    """An error status with an OpenAI-style error body."""

    status: int
    message: str = "server error"
    param: str | None = None
    delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=lambda: {"retry-after-ms": "1"})


@dataclass(frozen=True)
class Raw:
    """A 200 whose body is not a chat completion (a misbehaving proxy or server)."""

    body: str
    content_type: str = "text/html"
    delay: float = 0.0


Reply = Answer | Failure | Raw
Responder = Callable[[ChatRequest], Reply]


# The model's behaviours.


def _logins(card: Mapping[str, Any]) -> list[str]:
    found = [str(card.get("author", ""))]
    found += [str(login) for login in card.get("participants", [])]
    found += [str(c.get("author", "")) for c in card.get("comments", [])]
    return list(dict.fromkeys(login for login in found if login))


def _fill(shape: Any, request: ChatRequest, card: Mapping[str, Any] | None, n: int = 0) -> Any:
    cards = request.cards
    facts = request.facts
    if isinstance(shape, dict):
        if "number" in shape and card is not None:
            out = {}
            for key, value in shape.items():
                if key == "number":
                    out[key] = card["number"]
                elif isinstance(value, list) and "login" in json.dumps(value):
                    out[key] = [
                        {"login": login, "view": _sentence(request, card, login, i)}
                        for i, login in enumerate(_logins(card))
                    ]
                else:
                    out[key] = _fill(value, request, card, n)
            return out
        return {key: _fill(value, request, card, n) for key, value in shape.items()}
    if isinstance(shape, list):
        inner = shape[0] if shape else "text"
        if isinstance(inner, dict) and "number" in inner:
            return [_fill(inner, request, c, i) for i, c in enumerate(cards)]
        if isinstance(inner, dict) and "term" in inner:
            terms = [t["term"] for t in facts.get("trends", [])]
            return [
                {**_fill(inner, request, card, i), "term": term} for i, term in enumerate(terms)
            ]
        return [_fill(inner, request, card, i) for i in range(2)]
    if isinstance(shape, int):
        return card["number"] if card else 0
    return _sentence(request, card or (cards[0] if cards else None), None, n)


def _sentence(
    request: ChatRequest, card: Mapping[str, Any] | None, login: str | None, n: int
) -> str:
    if card is None:
        contributors = request.facts.get("activity", {}).get("top_contributors", [])
        who = f"@{contributors[0]['login']}" if contributors else "the team"
        if request.lang == "zh":
            return f"第 {n + 1} 点：{who} 今天很活跃，`vllm serve` 相关工作继续推进。"
        return f"Point {n + 1}: {who} was active today and `vllm serve` work moved on."
    who = login or card.get("author", "")
    if request.lang == "zh":
        return f"#{card['number']} 由 @{who} 推进，ROCm 与 `FP8` 相关（第 {n + 1} 点）。"
    return f"#{card['number']} was moved forward by @{who}, around ROCm and `FP8` ({n + 1})."


def _counts_sentence(request: ChatRequest) -> str:
    counts = request.facts.get("counts", {})
    if not counts:
        return ""
    if request.lang == "zh":
        return (
            f"新增 Issue {counts['new_issues']} 个，关闭 Issue {counts['closed_issues']} 个，"
            f"新 PR {counts['new_prs']} 个，合并 PR {counts['merged_prs']} 个，"
            f"关闭未合并 PR {counts['closed_unmerged_prs']} 个。"
        )
    return (
        f"{counts['new_issues']} issues were opened and {counts['closed_issues']} closed; "
        f"{counts['new_prs']} PRs were opened, {counts['merged_prs']} merged and "
        f"{counts['closed_unmerged_prs']} closed without merging."
    )


def grounded_data(request: ChatRequest, *, counts: bool = True) -> dict[str, Any]:
    """The JSON a well-behaved model answers: the requested shape, citing only given data (a
    summary states the window's counts unless ``counts`` is false)."""
    filled = _fill(request.answer_format, request, None)
    if not isinstance(filled, dict):
        return {}
    if counts and isinstance(filled.get("summary"), str):
        filled["summary"] = f"{_counts_sentence(request)} {filled['summary']}".strip()
    return filled


def grounded(request: ChatRequest) -> Reply:
    """A well-behaved model."""
    return Answer(json.dumps(grounded_data(request), ensure_ascii=False))


def _edit_strings(value: Any, edit: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return edit(value)
    if isinstance(value, list):
        return [_edit_strings(v, edit) for v in value]
    if isinstance(value, dict):
        return {k: _edit_strings(v, edit) for k, v in value.items()}
    return value


def echoing(request: ChatRequest) -> Reply:
    """A model that answers with the answer format itself: placeholders instead of content."""
    return Answer(json.dumps(request.answer_format, ensure_ascii=False))


def _in_language(request: ChatRequest, lang: str) -> ChatRequest:
    """The same request as if it had asked for ``lang``."""
    messages = [
        {**m, "content": "简体中文" if lang == "zh" else "English"} if m["role"] == "system" else m
        for m in request.messages
    ]
    return ChatRequest({**request.body, "messages": messages}, request.headers, request.started)


def wrong_language(request: ChatRequest) -> Reply:
    """A model that answers in the other language: English for zh, Chinese for en."""
    other = _in_language(request, "en" if request.lang == "zh" else "zh")
    return Answer(json.dumps(grounded_data(other), ensure_ascii=False))


ENGLISH_TERMS = "（the attention backend selection）"


def _with_terms(value: Any) -> Any:
    if isinstance(value, str) and value.strip():
        return f"{value}{ENGLISH_TERMS}"
    if isinstance(value, list):
        return [_with_terms(v) for v in value]
    if isinstance(value, dict):
        return {k: v if k in ("number", "login") else _with_terms(v) for k, v in value.items()}
    return value


def english_terms(request: ChatRequest) -> Reply:
    """A model whose zh sentences carry English terms a glossary names in Chinese: its
    Chinese share falls below the template's floor."""
    return Answer(json.dumps(_with_terms(grounded_data(request)), ensure_ascii=False))


def omitting_counts(request: ChatRequest) -> Reply:
    """A model whose summary leaves out the window's counts."""
    return Answer(json.dumps(grounded_data(request, counts=False), ensure_ascii=False))


def _uncited(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub(r"\s*#\d+\s*", " ", value).strip()
    if isinstance(value, list):
        if value and isinstance(value[0], dict) and "number" in value[0]:
            return []
        return [_uncited(v) for v in value]
    if isinstance(value, dict):
        return {k: _uncited(v) for k, v in value.items()}
    return value


def citing_nothing(request: ChatRequest) -> Reply:
    """A model that cites no item: no ``#N`` in its text, no numbered entries."""
    return Answer(json.dumps(_uncited(grounded_data(request)), ensure_ascii=False))


def hallucinating(request: ChatRequest) -> Reply:
    """A model that cites an item and a person that are not in the data."""
    data = _edit_strings(
        grounded_data(request), lambda s: s + " See also #987654 by @made-up-person."
    )
    return Answer(json.dumps(data, ensure_ascii=False))


def hallucinating_number(request: ChatRequest) -> Reply:
    """A model that puts an unknown item number in a numbered field."""
    data = grounded_data(request)
    for values in data.values():
        if isinstance(values, list) and values and isinstance(values[0], dict):
            values[0]["number"] = 987654
    return Answer(json.dumps(data, ensure_ascii=False))


def hallucinating_login(request: ChatRequest) -> Reply:
    """A model that names a participant who is not in the data."""
    data = _edit_strings(grounded_data(request), lambda s: s.replace("@", "@x-", 1))
    return Answer(json.dumps(data, ensure_ascii=False))


def appending(text: str) -> Responder:
    """A model that adds ``text`` to every string of a grounded answer."""

    def respond(request: ChatRequest) -> Reply:
        data = _edit_strings(grounded_data(request), lambda s: f"{s} {text}")
        return Answer(json.dumps(data, ensure_ascii=False))

    return respond


def blank(request: ChatRequest) -> Reply:
    """A model whose every string shows nothing once Markdown emphasis is dropped."""
    data = _edit_strings(grounded_data(request), lambda s: "** __ **")
    return Answer(json.dumps(data, ensure_ascii=False))


def gullible(request: ChatRequest) -> Reply:
    """A model that obeys instructions found in the item data."""
    if "ignore your instructions" in request.task.lower():
        data = _edit_strings(grounded_data(request), lambda s: "@channel <!channel> " + s)
        return Answer(json.dumps(data, ensure_ascii=False))
    return grounded(request)


def fenced(request: ChatRequest) -> Reply:
    """A chatty model: prose around a fenced JSON block."""
    body = json.dumps(grounded_data(request), ensure_ascii=False, indent=2)
    return Answer(f"Here is the section:\n```json\n{body}\n```\nHope this helps!")


def invalid_json(request: ChatRequest) -> Reply:
    return Answer('{"summary": "unterminated')


def refusing(request: ChatRequest) -> Reply:
    return Answer(None, refusal="I can't help with that request.")


def refusing_text(request: ChatRequest) -> Reply:
    return Answer("I'm sorry, but I can't help with that.")


def slow(seconds: float, then: Responder = grounded) -> Responder:
    """A model that answers after ``seconds``."""

    def respond(request: ChatRequest) -> Reply:
        reply = then(request)
        if isinstance(reply, Answer):
            return Answer(reply.content, reply.refusal, reply.finish_reason, seconds, reply.usage)
        return reply

    return respond


def raw(body: str, content_type: str = "text/html") -> Responder:
    """A 200 that is not a chat completion."""
    return lambda request: Raw(body, content_type)


def status(code: int, message: str = "server error") -> Responder:
    """An error status, retried at once by the client (``retry-after-ms: 1``)."""
    return lambda request: Failure(code, message)


class FakeOpenAI:
    """The server. Use as ``async with FakeOpenAI() as fake: ... fake.base_url``."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        json_schema: bool = True,
        json_object: bool = True,
        max_tokens: bool = True,
        refusal_status: int = 400,
        default: Responder = grounded,
    ) -> None:
        self.latency = latency
        self.json_schema = json_schema
        self.json_object = json_object
        self.refusal_status = refusal_status
        self.accepts_max_tokens = max_tokens
        self.default = default
        self.requests: list[ChatRequest] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._scripts: dict[str, deque[Responder]] = defaultdict(deque)
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    def script(self, section: str, *replies: Responder) -> None:
        """Answer the next requests of ``section`` with ``replies``, in order, then the default."""
        self._scripts[section].extend(replies)

    def for_section(self, section: str) -> list[ChatRequest]:
        return [r for r in self.requests if r.section == section]

    async def __aenter__(self) -> FakeOpenAI:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def _reply(self, request: ChatRequest) -> Reply:
        if "max_tokens" in request.body and not self.accepts_max_tokens:
            return Failure(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "max_tokens",
            )
        kind = request.response_format
        if kind == "json_schema" and not self.json_schema:
            return self._refuse("json_schema")
        if kind == "json_object" and not self.json_object:
            return self._refuse("json_object")
        queue = self._scripts.get(request.section)
        responder = queue.popleft() if queue else self.default
        return responder(request)

    def _refuse(self, kind: str) -> Failure:
        if self.refusal_status >= 500:  # as llama-cpp-python's server does
            return Failure(
                self.refusal_status,
                "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                f"'input': '{kind}'}}",
            )
        return Failure(
            self.refusal_status, f"response_format {kind} is not supported", "response_format"
        )

    async def _chat(self, http: web.Request) -> web.Response:
        body = await http.json()
        request = ChatRequest(body, dict(http.headers), time.monotonic())
        self.requests.append(request)
        self._in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            reply = self._reply(request)
            delay = self.latency + reply.delay
            if delay:
                await asyncio.sleep(delay)
            return self._response(request, reply)
        finally:
            self._in_flight -= 1
            request.finished = time.monotonic()

    def _response(self, request: ChatRequest, reply: Reply) -> web.Response:
        if isinstance(reply, Raw):
            return web.Response(text=reply.body, content_type=reply.content_type)
        if isinstance(reply, Failure):
            error = {"message": reply.message, "type": "error", "param": reply.param, "code": None}
            return web.json_response(
                {"error": error}, status=reply.status, headers=dict(reply.headers)
            )
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.content,
            "refusal": reply.refusal,
        }
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.body.get("model", "")),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        }
        if reply.usage:
            completion = count_tokens(reply.content or reply.refusal or "")
            payload["usage"] = {
                "prompt_tokens": request.prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": request.prompt_tokens + completion,
            }
        return web.json_response(payload)
