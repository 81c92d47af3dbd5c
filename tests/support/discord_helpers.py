"""Reading what the bot sent to the fake Discord."""

from __future__ import annotations

import re
from typing import Any

from tests.fakes.discord import APP_ID, Call, FakeDiscord

WEBHOOK = rf"webhooks/{APP_ID}/[^/]+"
CALLBACK = r"interactions/\d+/[^/]+/callback"
CHANNEL_MESSAGE = r"channels/\d+/messages"
THREAD_FROM_MESSAGE = r"channels/\d+/messages/\d+/threads"


def is_message(call: Call) -> bool:
    """Whether ``call`` posted a message (follow-up, channel message or callback with content)."""
    if call.status >= 300:
        return False
    if call.matches("POST", WEBHOOK) or call.matches("POST", CHANNEL_MESSAGE):
        return True
    return call.matches("POST", CALLBACK) and call.body["type"] == 4


def payload(call: Call) -> dict[str, Any]:
    """The message payload a call carried."""
    if call.matches("POST", CALLBACK):
        data: dict[str, Any] = call.body["data"]
        return data
    body: dict[str, Any] = call.body
    return body


def embeds(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's embeds without the keys discord.py adds on its own (``flags``)."""
    return [{k: v for k, v in e.items() if k != "flags"} for e in message.get("embeds") or []]


def sent_messages(fake: FakeDiscord) -> list[dict[str, Any]]:
    return [payload(c) for c in fake.calls if is_message(c)]


def texts(message: dict[str, Any]) -> list[str]:
    """Every piece of text of a message: content, embed titles, descriptions and fields."""
    found = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        found += [embed.get("title") or "", embed.get("description") or ""]
        for field in embed.get("fields") or []:
            found += [field["name"], field["value"]]
    return found


def in_channel(fake: FakeDiscord, channel_id: int) -> list[Call]:
    """The messages posted into one channel (or thread), in order."""
    return [
        c
        for c in fake.calls
        if c.status < 300 and c.matches("POST", rf"channels/{channel_id}/messages")
    ]


def thread_ids(fake: FakeDiscord) -> list[int]:
    return [int(c.response["id"]) for c in fake.find("POST", THREAD_FROM_MESSAGE)]


UNESCAPED_MENTION = re.compile(r"(?<!\\)<(@[!&]?|#)\d+>")
