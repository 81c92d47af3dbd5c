"""A fake Slack: Web API, response URLs and a Socket Mode WebSocket server on 127.0.0.1.

Every Web API call is recorded (method, arguments, token). ``chat.postMessage`` returns
increasing ``ts`` values; failures (``not_in_channel``...) and 429s with ``Retry-After`` can be
queued per method. File uploads (``files.getUploadURLExternal``, the upload URL it returns, then
``files.completeUploadExternal``) keep each file's bytes in ``uploads``.
``apps.connections.open`` returns the ``ws://`` URL of the Socket Mode server, which sends
envelopes on demand and records the acknowledgements it gets back.
``users.info`` answers from :attr:`FakeSlack.people` (``tz`` always, ``locale`` only with
``include_locale``, as Slack does); ``users.conversations`` pages the conversations of
:attr:`FakeSlack.members` that hold the user; ``views.publish`` and ``views.open`` check the
view's size and block count and record it. The payload builders at the end make slash
commands, events, button clicks (``block_actions``) and modal submissions (``view_submission``)
as Slack sends them.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from aiohttp import WSMsgType, web

BOT_USER = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM = "T0000001"
MAX_VIEW_BLOCKS = 100  # a modal or Home tab view holds at most 100 blocks
MAX_VIEW_BYTES = 250_000


@dataclass(frozen=True, slots=True)
class Call:
    """One recorded Web API call."""

    method: str
    args: dict[str, Any]
    token: str | None
    at: float


@dataclass(slots=True)
class _Failure:
    error: str
    status: int = 200
    retry_after: int | None = None
    channel: str | None = None


@dataclass(slots=True)
class FakeSlack:
    """The fake; use :func:`start_fake_slack` to run it."""

    calls: list[Call] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)  # posts to response URLs
    acks: list[dict[str, Any]] = field(default_factory=list)  # Socket Mode acknowledgements
    uploads: dict[str, bytes] = field(default_factory=dict)  # file id -> bytes uploaded
    port: int = 0
    app_token: str = "xapp-1-test"
    people: dict[str, dict[str, Any]] = field(default_factory=dict)  # users.info fields by id
    members: dict[str, set[str]] = field(default_factory=dict)  # conversation id -> user ids
    _failures: dict[str, list[_Failure]] = field(default_factory=dict)
    _ts: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _sockets: list[web.WebSocketResponse] = field(default_factory=list)
    _connected: asyncio.Event = field(default_factory=asyncio.Event)
    _refusing: bool = False
    runner: web.AppRunner | None = None

    # -- addresses -------------------------------------------------------------------------

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.base}/api/"

    def response_url(self, name: str = "r1") -> str:
        return f"{self.base}/respond/{name}"

    # -- scripting -------------------------------------------------------------------------

    def fail(
        self,
        method: str,
        error: str,
        *,
        status: int = 200,
        channel: str | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (in ``channel``) with ``error``."""
        queue = self._failures.setdefault(method, [])
        queue.extend(_Failure(error, status, None, channel) for _ in range(times))

    def rate_limit(self, method: str, retry_after: int, *, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 and ``Retry-After``."""
        queue = self._failures.setdefault(method, [])
        queue.extend(_Failure("ratelimited", 429, retry_after) for _ in range(times))

    # -- reading the records ---------------------------------------------------------------

    def called(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    @property
    def posts(self) -> list[dict[str, Any]]:
        """The arguments of every successful ``chat.postMessage``, in order, with their ``ts``."""
        return [c.args for c in self.calls if c.method == "chat.postMessage" and "_ts" in c.args]

    async def wait_until(self, predicate: Callable[[], bool], within: float = 5.0) -> None:
        """Wait until ``predicate()`` holds, re-checking whenever something is recorded."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), within)

    async def _record(self, target: list[Any], value: Any) -> None:
        async with self._changed:
            target.append(value)
            self._changed.notify_all()

    # -- Socket Mode -----------------------------------------------------------------------

    async def wait_connected(self, within: float = 5.0) -> None:
        await asyncio.wait_for(self._connected.wait(), within)

    async def socket_mode_down(self) -> None:
        """Close every Socket Mode connection and refuse new ones until :meth:`socket_mode_up`."""
        self._refusing = True
        self._connected.clear()
        for socket in list(self._sockets):
            await socket.close()

    def socket_mode_up(self) -> None:
        """Accept Socket Mode connections again."""
        self._refusing = False

    async def send_envelope(self, envelope: Mapping[str, Any]) -> None:
        """Send one Socket Mode envelope to the connected client."""
        await self.wait_connected()
        await self._sockets[-1].send_str(json.dumps(envelope))

    # -- server ----------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)
        app.router.add_post("/respond/{name}", self._respond)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_get("/link", self._socket)
        return app

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: dict[str, Any]
        if request.method == "GET":
            args = {}
        elif request.content_type == "application/json":
            args = await request.json()
        else:
            args = dict(await request.post())
        args = {**dict(request.query), **args}
        for key in ("blocks", "files"):
            if isinstance(args.get(key), str):
                args[key] = json.loads(args[key])
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") or args.get("token")
        failure = self._next_failure(method, args)
        if failure is not None:
            await self._record(self.calls, Call(method, args, token, time.monotonic()))
            headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after else {}
            return web.json_response(
                {"ok": False, "error": failure.error}, status=failure.status, headers=headers
            )
        body = self._answer(method, args, token)
        if method == "chat.postMessage" and body.get("ok"):
            args["_ts"] = body["ts"]
        await self._record(self.calls, Call(method, args, token, time.monotonic()))
        return web.json_response(body)

    def _next_failure(self, method: str, args: Mapping[str, Any]) -> _Failure | None:
        queue = self._failures.get(method) or []
        for index, failure in enumerate(queue):
            if failure.channel is None or failure.channel == args.get("channel"):
                return queue.pop(index)
        return None

    def _answer(self, method: str, args: dict[str, Any], token: str | None) -> dict[str, Any]:
        if method == "apps.connections.open":
            if token != self.app_token:
                return {"ok": False, "error": "invalid_auth"}
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link?ticket=t1"}
        if not (token or "").startswith("xoxb-"):
            return {"ok": False, "error": "not_authed"}
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://fake.slack.test/",
                "team": "Fake",
                "user": "vllm-report",
                "team_id": TEAM,
                "user_id": BOT_USER,
                "bot_id": BOT_ID,
                "is_enterprise_install": False,
            }
        if method == "chat.postMessage":
            n = next(self._ts)
            ts = f"{1_700_000_000 + n}.{n:06d}"
            return {
                "ok": True,
                "channel": args.get("channel"),
                "ts": ts,
                "message": {"text": args.get("text", ""), "ts": ts},
            }
        if method == "files.getUploadURLExternal":
            file_id = f"F{len(self.calls) + 1:08d}"
            return {"ok": True, "upload_url": f"{self.base}/upload/{file_id}", "file_id": file_id}
        if method == "files.completeUploadExternal":
            files = args.get("files") or []
            missing = [f for f in files if f.get("id") not in self.uploads]
            if missing:
                return {"ok": False, "error": "file_not_found"}
            return {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in files]}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"{1_800_000_000 + len(self.calls)}.000000"}
        if method == "conversations.open":
            users = str(args.get("users", ""))
            return {"ok": True, "channel": {"id": "D" + users.split(",")[0].removeprefix("U")}}
        if method == "users.info":
            user = str(args.get("user", ""))
            person = {
                "id": user,
                "team_id": TEAM,
                "is_admin": user.startswith("UADMIN"),
                **self.people.get(user, {}),  # e.g. tz, tz_label, locale
            }
            if str(args.get("include_locale", "")).lower() not in ("1", "true"):
                person.pop("locale", None)
            return {"ok": True, "user": person}
        if method in ("views.publish", "views.open"):
            return self._view(method, args)
        if method == "users.conversations":
            return self._conversations(args)
        if method == "conversations.info":
            return {"ok": True, "channel": {"id": args.get("channel"), "creator": "UCREATOR"}}
        return {"ok": False, "error": "unknown_method"}

    def _conversations(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The conversations of ``members`` that hold ``user``, a page of ``limit`` from
        ``cursor`` on (the next cursor empty on the last page), as Slack pages them."""
        user = str(args.get("user", ""))
        ids = sorted(c for c, users in self.members.items() if user in users)
        start = int(args.get("cursor") or 0)
        limit = int(args.get("limit") or 100)
        page = ids[start : start + limit]
        after = str(start + limit) if start + limit < len(ids) else ""
        return {
            "ok": True,
            "channels": [{"id": c} for c in page],
            "response_metadata": {"next_cursor": after},
        }

    @staticmethod
    def _view(method: str, args: dict[str, Any]) -> dict[str, Any]:
        view = args.get("view")
        if isinstance(view, str):
            view = json.loads(view)
            args["view"] = view
        if not isinstance(view, dict) or view.get("type") not in ("home", "modal"):
            return {"ok": False, "error": "invalid_arguments"}
        if method == "views.publish" and not args.get("user_id"):
            return {"ok": False, "error": "invalid_arguments"}
        if method == "views.open" and not args.get("trigger_id"):
            return {"ok": False, "error": "invalid_trigger_id"}
        blocks = view.get("blocks") or []
        if len(blocks) > MAX_VIEW_BLOCKS or len(json.dumps(view)) > MAX_VIEW_BYTES:
            return {"ok": False, "error": "invalid_blocks"}
        return {"ok": True, "view": {"id": f"V{len(blocks):07d}", **view}}

    async def _upload(self, request: web.Request) -> web.Response:
        data = await request.read()
        async with self._changed:
            self.uploads[request.match_info["file_id"]] = data
            self._changed.notify_all()
        return web.Response(text=f"OK - {len(data)}")

    async def _respond(self, request: web.Request) -> web.Response:
        body = await request.json()
        body["_name"] = request.match_info["name"]
        await self._record(self.responses, body)
        return web.Response(text="ok")

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if self._refusing:
            return web.Response(status=503, text="socket mode is down")
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.append(socket)
        await socket.send_str(
            json.dumps(
                {"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0000001"}}
            )
        )
        self._connected.set()
        async for message in socket:
            if message.type == WSMsgType.TEXT:
                await self._record(self.acks, json.loads(message.data))
        return socket


async def start_fake_slack() -> FakeSlack:
    """Start a fake Slack on a free port of 127.0.0.1."""
    fake = FakeSlack()
    runner = web.AppRunner(fake.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    fake.runner = runner
    fake.port = runner.addresses[0][1]
    return fake


async def stop_fake_slack(fake: FakeSlack) -> None:
    for socket in fake._sockets:
        await socket.close()
    if fake.runner is not None:
        await fake.runner.cleanup()


# -- building requests as Slack sends them ----------------------------------------------------


def sign(secret: str, body: str, timestamp: int | None = None) -> dict[str, str]:
    """The v0 signature headers of a request body."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest}"}


def slash_payload(
    text: str,
    *,
    channel: str = "C0000001",
    user: str = "U0000001",
    trigger_id: str = "trig-1",
    response_url: str = "",
) -> dict[str, str]:
    return {
        "token": "legacy",
        "team_id": TEAM,
        "team_domain": "fake",
        "channel_id": channel,
        "channel_name": "general",
        "user_id": user,
        "user_name": "alice",
        "command": "/vllm-report",
        "text": text,
        "api_app_id": "A0000001",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


def form_body(payload: Mapping[str, str]) -> str:
    return urlencode(payload)


def event_payload(event: Mapping[str, Any], *, event_id: str = "Ev0001") -> dict[str, Any]:
    return {
        "token": "legacy",
        "team_id": TEAM,
        "api_app_id": "A0000001",
        "event": dict(event),
        "type": "event_callback",
        "event_id": event_id,
        "event_time": 1_700_000_000,
        "authorizations": [
            {
                "team_id": TEAM,
                "user_id": BOT_USER,
                "is_bot": True,
                "enterprise_id": None,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
    }


def mention(
    text: str, *, channel: str = "C0000001", user: str = "U0000001", ts: str = "1699999999.000100"
) -> dict[str, Any]:
    return {
        "type": "app_mention",
        "user": user,
        "text": f"<@{BOT_USER}> {text}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }


def direct_message(
    text: str, *, user: str = "U0000001", ts: str = "1699999999.000200"
) -> dict[str, Any]:
    return {
        "type": "message",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": "D0000001",
        "event_ts": ts,
        "channel_type": "im",
    }


def home_opened(*, user: str = "U0000001", tab: str = "home") -> dict[str, Any]:
    """An ``app_home_opened`` event."""
    return {
        "type": "app_home_opened",
        "user": user,
        "channel": "D0000001",
        "tab": tab,
        "event_ts": "1700000000.000300",
    }


def block_actions_payload(
    action_id: str,
    value: str,
    *,
    user: str = "U0000001",
    channel: str = "C0000001",
    message_ts: str = "1700000001.000001",
    response_url: str = "",
    trigger_id: str = "trig-action-1",
    container: str = "message",
) -> dict[str, Any]:
    """A button click (``block_actions``) on a message or on the Home tab."""
    payload: dict[str, Any] = {
        "type": "block_actions",
        "team": {"id": TEAM, "domain": "fake"},
        "user": {"id": user, "username": "alice", "team_id": TEAM},
        "api_app_id": "A0000001",
        "token": "legacy",
        "trigger_id": trigger_id,
        "actions": [
            {
                "type": "button",
                "action_id": action_id,
                "block_id": "actions",
                "value": value,
                "action_ts": "1700000002.000001",
            }
        ],
    }
    if container == "message":
        payload["container"] = {
            "type": "message",
            "message_ts": message_ts,
            "channel_id": channel,
            "is_ephemeral": False,
        }
        payload["channel"] = {"id": channel, "name": "general"}
        payload["message"] = {"type": "message", "ts": message_ts, "text": ""}
        payload["response_url"] = response_url
    else:
        payload["container"] = {"type": "view", "view_id": "VHOME0001"}
        payload["view"] = {"id": "VHOME0001", "type": "home"}
    return payload


def view_submission_payload(
    callback_id: str, values: Mapping[str, Mapping[str, Any]], *, user: str = "U0000001"
) -> dict[str, Any]:
    """A modal's submission: ``values`` maps block id to action id to its state."""
    return {
        "type": "view_submission",
        "team": {"id": TEAM, "domain": "fake"},
        "user": {"id": user, "username": "alice", "team_id": TEAM},
        "api_app_id": "A0000001",
        "token": "legacy",
        "trigger_id": "trig-view-1",
        "view": {
            "id": "VMODAL001",
            "type": "modal",
            "callback_id": callback_id,
            "private_metadata": "",
            "state": {"values": {k: dict(v) for k, v in values.items()}},
        },
    }
