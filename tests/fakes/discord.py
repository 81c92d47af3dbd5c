"""A fake Discord on 127.0.0.1: REST API and gateway, recording every REST call.

The gateway speaks the real protocol (HELLO, IDENTIFY then READY and GUILD_CREATE, heartbeat
ACKs) and lets a test push INTERACTION_CREATE and MESSAGE_CREATE. The REST API answers what
discord.py calls for login, command sync, interaction callbacks, follow-up webhooks, threads and
channel messages. Like Discord, the first follow-up after a deferral replaces the "thinking"
message and keeps its flags, and messages returned by follow-ups carry no ``guild_id``. A 429
always has a ``Via`` header (without one discord.py assumes a Cloudflare ban).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, WSMsgType, web

APP_ID = 900000000000000001
BOT_ID = 900000000000000002
GUILD_ID = 900000000000000003
CHANNEL_ID = 900000000000000004
USER_ID = 900000000000000005
MANAGER_ID = 900000000000000006
MANAGER_ROLE_ID = 900000000000000007
TOKEN = "fake-bot-token"

VIEW_CHANNEL, SEND_MESSAGES, MANAGE_CHANNELS = 1 << 10, 1 << 11, 1 << 4
MEMBER_PERMISSIONS = VIEW_CHANNEL | SEND_MESSAGES | (1 << 14) | (1 << 16) | (1 << 35) | (1 << 38)
EPHEMERAL = 64
TIMESTAMP = "2026-03-10T03:21:00.000000+00:00"


def user(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


BOT_USER = user(BOT_ID, "vllm-report", bot=True)
USER = user(USER_ID, "alice")
MANAGER = user(MANAGER_ID, "mia")


def member(who: dict[str, Any], roles: list[int] | None = None) -> dict[str, Any]:
    return {
        "user": who,
        "roles": [str(r) for r in roles or []],
        "joined_at": TIMESTAMP,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "nick": None,
    }


TEXT_CHANNEL = {
    "id": str(CHANNEL_ID),
    "type": 0,
    "guild_id": str(GUILD_ID),
    "name": "general",
    "position": 0,
    "permission_overwrites": [],
    "nsfw": False,
    "topic": None,
    "rate_limit_per_user": 0,
    "parent_id": None,
    "last_message_id": None,
    "flags": 0,
}


@dataclass
class Call:
    """One REST request as the fake received it, and the status it answered."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    status: int = 200
    flags: int = 0  # the flags of the message it created, as Discord would store them
    response: Any = None
    files: list[dict[str, Any]] = field(default_factory=list)  # multipart uploads: name, data

    def matches(self, method: str, pattern: str) -> bool:
        return self.method == method and re.fullmatch(pattern, self.path) is not None


@dataclass
class _Interaction:
    channel_id: int
    flags: int = 0
    original_pending: bool = False


@dataclass
class _Rule:
    method: str
    pattern: str
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1


class FakeDiscord:
    """The fake servers: ``await start()``, then use ``api_url`` and ``gateway_url``."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.identify: dict[str, Any] | None = None
        self.gateway_queries: list[dict[str, str]] = []
        self.heartbeats = 0
        self.heartbeat_interval_ms = 41250  # what HELLO asks for; tests may shorten it
        self.threads: dict[int, int] = {}  # thread id -> parent channel id
        self._thread_objects: dict[int, dict[str, Any]] = {}
        self._ids = itertools.count(910000000000000000)
        self._interactions: dict[str, _Interaction] = {}
        self._rules: list[_Rule] = []
        self._ws: web.WebSocketResponse | None = None
        self._seq = 0
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        self._app = app

    # Lifecycle

    async def start(self) -> None:
        self._runner = web.AppRunner(self._app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = int(self._runner.addresses[0][1])

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # Test controls

    def fail_next(
        self,
        method: str,
        pattern: str,
        status: int,
        body: dict[str, Any],
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` requests matching (method, path regex) with an error."""
        self._rules.append(_Rule(method, pattern, status, body, headers or {}, times))

    def rate_limit_next(self, method: str, pattern: str, retry_after: float = 0.05) -> None:
        """Answer the next matching request with a 429 as Discord (behind Google's proxy) does."""
        self.fail_next(
            method,
            pattern,
            429,
            {"message": "You are being rate limited.", "retry_after": retry_after, "global": False},
            {"Via": "1.1 google", "Retry-After": str(retry_after), "X-RateLimit-Scope": "user"},
        )

    async def wait_for(
        self, predicate: Callable[[list[Call]], bool], seconds: float = 5.0
    ) -> list[Call]:
        """Wait until ``predicate(calls)`` holds; the calls so far."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: predicate(self.calls)), seconds)
        return list(self.calls)

    def find(self, method: str, pattern: str) -> list[Call]:
        return [c for c in self.calls if c.matches(method, pattern) and c.status < 300]

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH event over the gateway."""
        assert self._ws is not None, "no gateway connection"
        self._seq += 1
        await self._ws.send_json({"op": 0, "t": event, "s": self._seq, "d": data})

    async def command(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        who: dict[str, Any] = USER,
        permissions: int = MEMBER_PERMISSIONS,
        autocomplete: str | None = None,
        locale: str = "en-US",
        guild_locale: str = "en-US",
    ) -> str:
        """Push an application command (or its autocomplete) from a user whose client speaks
        ``locale``, in a guild whose language is ``guild_locale``; the interaction token."""
        interaction_id = next(self._ids)
        token = f"interaction-token-{interaction_id}"
        opts = []
        for key, value in (options or {}).items():
            kind = 5 if isinstance(value, bool) else 3
            opt: dict[str, Any] = {"name": key, "type": kind, "value": value}
            if key == autocomplete:
                opt["focused"] = True
            opts.append(opt)
        self._interactions[token] = _Interaction(CHANNEL_ID)
        await self.dispatch(
            "INTERACTION_CREATE",
            {
                "id": str(interaction_id),
                "application_id": str(APP_ID),
                "type": 4 if autocomplete else 2,
                "token": token,
                "version": 1,
                "guild_id": str(GUILD_ID),
                "channel_id": str(CHANNEL_ID),
                "channel": TEXT_CHANNEL,
                "member": {**member(who), "permissions": str(permissions)},
                "data": {"id": str(APP_ID + 100), "name": name, "type": 1, "options": opts},
                "app_permissions": str(MEMBER_PERMISSIONS),
                "locale": locale,
                "guild_locale": guild_locale,
                "entitlements": [],
                "context": 0,
                "authorizing_integration_owners": {"0": str(GUILD_ID)},
                "attachment_size_limit": 8 * 1024 * 1024,
            },
        )
        return token

    async def click(
        self,
        custom_id: str,
        *,
        message_id: int = 1,
        who: dict[str, Any] = USER,
        permissions: int = MEMBER_PERMISSIONS,
        locale: str = "en-US",
    ) -> str:
        """Push a button click (a MESSAGE_COMPONENT interaction) on message ``message_id`` of the
        channel; the interaction token."""
        interaction_id = next(self._ids)
        token = f"interaction-token-{interaction_id}"
        self._interactions[token] = _Interaction(CHANNEL_ID)
        message = self._message(CHANNEL_ID, {"content": ""}, message_id=message_id)
        await self.dispatch(
            "INTERACTION_CREATE",
            {
                "id": str(interaction_id),
                "application_id": str(APP_ID),
                "type": 3,
                "token": token,
                "version": 1,
                "guild_id": str(GUILD_ID),
                "channel_id": str(CHANNEL_ID),
                "channel": TEXT_CHANNEL,
                "member": {**member(who), "permissions": str(permissions)},
                "message": message,
                "data": {"custom_id": custom_id, "component_type": 2},
                "app_permissions": str(MEMBER_PERMISSIONS),
                "locale": locale,
                "guild_locale": "en-US",
                "entitlements": [],
                "context": 0,
                "authorizing_integration_owners": {"0": str(GUILD_ID)},
                "attachment_size_limit": 8 * 1024 * 1024,
            },
        )
        return token

    async def mention(
        self,
        content: str,
        *,
        who: dict[str, Any] = USER,
        roles: list[int] | None = None,
        channel_id: int = CHANNEL_ID,
        direct: bool = False,
        mentions_bot: bool = True,
    ) -> int:
        """Push a MESSAGE_CREATE that mentions the bot (or a DM when ``direct``)."""
        message_id = next(self._ids)
        data: dict[str, Any] = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "author": who,
            "content": content,
            "timestamp": TIMESTAMP,
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [BOT_USER] if mentions_bot and not direct else [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": [],
        }
        if not direct:
            data["guild_id"] = str(GUILD_ID)
            data["member"] = member(who, roles)
        await self.dispatch("MESSAGE_CREATE", data)
        return message_id

    # Gateway

    def _guild(self) -> dict[str, Any]:
        return {
            "id": str(GUILD_ID),
            "name": "vLLM fans",
            "icon": None,
            "owner_id": str(MANAGER_ID),
            "unavailable": False,
            "large": False,
            "member_count": 3,
            "features": [],
            "emojis": [],
            "stickers": [],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "system_channel_flags": 0,
            "joined_at": TIMESTAMP,
            "roles": [
                {
                    "id": str(GUILD_ID),
                    "name": "@everyone",
                    "permissions": str(MEMBER_PERMISSIONS),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                },
                {
                    "id": str(MANAGER_ROLE_ID),
                    "name": "moderators",
                    "permissions": str(MEMBER_PERMISSIONS | MANAGE_CHANNELS),
                    "position": 1,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                },
            ],
            "channels": [TEXT_CHANNEL],
            "members": [member(BOT_USER)],
        }

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        self.gateway_queries.append(dict(request.query))
        hello = {"heartbeat_interval": self.heartbeat_interval_ms}
        await ws.send_json({"op": 10, "d": hello, "s": None, "t": None})
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            if payload["op"] == 1:
                await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
                async with self._changed:
                    self.heartbeats += 1
                    self._changed.notify_all()
            elif payload["op"] == 2:
                self.identify = payload["d"]
                await self.dispatch(
                    "READY",
                    {
                        "v": 10,
                        "user": BOT_USER,
                        "session_id": "fake-session",
                        "resume_gateway_url": self.gateway_url,
                        "shard": [0, 1],
                        "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
                        "application": {"id": str(APP_ID), "flags": 0},
                    },
                )
                await self.dispatch("GUILD_CREATE", self._guild())
        return ws

    # REST

    def _message(
        self,
        channel_id: int,
        body: dict[str, Any],
        *,
        flags: int = 0,
        webhook: bool = False,
        message_id: int | None = None,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(message_id or next(self._ids)),
            "channel_id": str(channel_id),
            "author": BOT_USER,
            "content": body.get("content") or "",
            "embeds": body.get("embeds") or [],
            "timestamp": TIMESTAMP,
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "pinned": False,
            "type": 0,
            "flags": flags,
            "components": [],
        }
        if webhook:
            data["webhook_id"] = str(APP_ID)
            data["application_id"] = str(APP_ID)
        elif channel_id == CHANNEL_ID or channel_id in self.threads:
            data["guild_id"] = str(GUILD_ID)
        if "message_reference" in body:
            data["message_reference"] = body["message_reference"]
        return data

    def _thread(self, parent: int, thread_id: int, name: str) -> dict[str, Any]:
        self.threads[thread_id] = parent
        self._thread_objects[thread_id] = found = self._thread_object(parent, thread_id, name)
        return found

    def _thread_object(self, parent: int, thread_id: int, name: str) -> dict[str, Any]:
        return {
            "id": str(thread_id),
            "type": 11,
            "guild_id": str(GUILD_ID),
            "parent_id": str(parent),
            "owner_id": str(BOT_ID),
            "name": name,
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": TIMESTAMP,
                "locked": False,
            },
            "member": {
                "id": str(thread_id),
                "user_id": str(BOT_ID),
                "join_timestamp": TIMESTAMP,
                "flags": 0,
            },
        }

    def _answer(self, call: Call) -> tuple[int, Any]:
        path, body, method = call.path, call.body, call.method
        if call.matches("GET", r"users/@me"):
            return 200, BOT_USER
        if call.matches("GET", r"oauth2/applications/@me"):
            return 200, {
                "id": str(APP_ID),
                "name": "vllm-report",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": MANAGER,
                "verify_key": "0" * 64,
                "flags": 0,
                "team": None,
                "summary": "",
                "rpc_origins": [],
            }
        if call.matches("GET", r"gateway(/bot)?"):
            return 200, {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        if call.matches("PUT", rf"applications/{APP_ID}/commands"):
            return 200, [
                {
                    **c,
                    "id": str(APP_ID + 100 + i),
                    "application_id": str(APP_ID),
                    "version": "1",
                    "default_member_permissions": None,
                    "nsfw": False,
                }
                for i, c in enumerate(body)
            ]
        if m := re.fullmatch(r"interactions/(\d+)/([^/]+)/callback", path):
            state = self._interactions[m[2]]
            kind = body["type"]
            flags = (body.get("data") or {}).get("flags") or 0
            state.flags = flags
            call.flags = flags
            state.original_pending = kind == 5
            resource: dict[str, Any] = {"type": kind}
            if kind == 4:
                resource["message"] = self._message(
                    state.channel_id, body.get("data") or {}, flags=flags, webhook=True
                )
            return 200, {
                "interaction": {
                    "id": m[1],
                    "type": 2,
                    "response_message_loading": kind == 5,
                    "response_message_ephemeral": bool(flags & EPHEMERAL),
                },
                "resource": resource,
            }
        if m := re.fullmatch(rf"webhooks/{APP_ID}/([^/]+)/messages/@original", path):
            state = self._interactions[m[1]]
            if method == "DELETE":
                state.original_pending = False
                return 204, None
        if m := re.fullmatch(rf"webhooks/{APP_ID}/([^/]+)", path):
            state = self._interactions[m[1]]
            flags = body.get("flags") or 0
            if state.original_pending:  # replaces the "thinking" message, keeping its flags
                flags, state.original_pending = state.flags, False
            call.flags = flags
            return 200, self._message(state.channel_id, body, flags=flags, webhook=True)
        if m := re.fullmatch(r"channels/(\d+)/messages/(\d+)/threads", path):
            return 201, self._thread(int(m[1]), int(m[2]), body["name"])
        if m := re.fullmatch(r"channels/(\d+)/threads", path):
            return 201, self._thread(int(m[1]), next(self._ids), body["name"])
        if m := re.fullmatch(r"channels/(\d+)/messages", path):
            return 200, self._message(int(m[1]), body)
        if m := re.fullmatch(r"channels/(\d+)", path):
            if method == "GET" and int(m[1]) == CHANNEL_ID:
                return 200, TEXT_CHANNEL
            if method == "GET" and int(m[1]) in self._thread_objects:
                return 200, self._thread_objects[int(m[1])]
            return 404, {"message": "Unknown Channel", "code": 10003}
        if re.fullmatch(r"channels/(\d+)/typing", path):
            return 204, None
        if call.matches("POST", r"users/@me/channels"):
            return 200, {
                "id": str(next(self._ids)),
                "type": 1,
                "last_message_id": None,
                "recipients": [USER],
                "flags": 0,
            }
        return 404, {"message": f"Unknown route {method} {path}", "code": 0}

    async def _rest(self, request: web.Request) -> web.Response:
        body: Any = None
        files: list[dict[str, Any]] = []
        if request.content_type == "multipart/form-data":  # a message with attachments
            async for part in await request.multipart():
                if not isinstance(part, BodyPartReader):
                    continue
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                else:
                    data = await part.read()
                    files.append(
                        {"field": part.name, "filename": part.filename, "data": bytes(data)}
                    )
        else:
            raw = await request.read()
            body = json.loads(raw) if raw and request.content_type == "application/json" else None
        call = Call(
            request.method,
            request.match_info["tail"],
            dict(request.query),
            body,
            {
                k: v
                for k, v in request.headers.items()
                if k.lower() in ("authorization", "content-type", "user-agent")
            },
            files=files,
        )
        headers: dict[str, str] = {}
        rule = next((r for r in self._rules if call.matches(r.method, r.pattern)), None)
        if rule is not None:
            rule.times -= 1
            if rule.times <= 0:
                self._rules.remove(rule)
            status, data, headers = rule.status, rule.body, rule.headers
        else:
            status, data = self._answer(call)
        call.status, call.response = status, data
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()
        if status == 204:
            return web.Response(status=204, headers=headers)
        # Discord's exact content type: discord.py compares it without parameters.
        return web.Response(
            body=json.dumps(data).encode(),
            status=status,
            headers=headers,
            content_type="application/json",
        )
