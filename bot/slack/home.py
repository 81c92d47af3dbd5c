"""The app's Home tab: the viewer's channels' subscriptions, the latest digests, "Subscribe a
channel".

Pure views (Block Kit ``home`` and ``modal``) and the reading of the modal's submission; the
listeners in :mod:`bot.slack.app` publish and open them through ``views.publish`` and
``views.open``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.commands import messages
from bot.commands.grammar import (
    CADENCES,
    DAYS,
    SubscribeCommand,
    command_options,
    subscribe_command,
)
from bot.slack.mrkdwn import escape, link, plain
from bot.slack.pack import section_block
from digest.models import Lang
from digest.render.html import page_path
from digest.windows import parse_day_start, zone

SUBSCRIBE_ACTION = "vr_home_subscribe"
SUBSCRIBE_VIEW = "vr_subscribe"
MAX_LISTED = 40  # a Home tab holds 100 blocks; the rest is counted, not listed
_TEXT = 3000
_LANGUAGES = ((Lang.EN, "English"), (Lang.ZH, "中文"))  # each in its own words


def latest_days(now: datetime, timezone: str, day_start: str, count: int = 3) -> list[str]:
    """The last ``count`` complete report days (newest first), as ``YYYY-MM-DD``."""
    local = now.astimezone(zone(timezone))
    latest = local.date() - timedelta(days=1 if local.time() >= parse_day_start(day_start) else 2)
    return [(latest - timedelta(days=i)).isoformat() for i in range(count)]


def _section(text: str) -> dict[str, Any]:
    return section_block(text[:_TEXT])


def home_view(
    lines: Sequence[str],
    *,
    repo: str,
    days: Sequence[str],
    site_url: str | None,
) -> dict[str, Any]:
    """The Home tab: one line per subscription (channel, schedule, language, next post), the
    latest digests of ``repo`` (linked to the site when it is published), the subscribe button."""
    words = messages.HOME
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": plain(words["title"], 150)}},
        _section(f"*{words['subscriptions']}*"),
    ]
    if not lines:
        blocks.append(_section(words["none"]))
    blocks.extend(_section(line) for line in lines[:MAX_LISTED])
    if len(lines) > MAX_LISTED:
        blocks.append(_section(words["more"].format(n=len(lines) - MAX_LISTED)))
    blocks.append(
        {
            "type": "actions",
            "block_id": "vr_home",
            "elements": [
                {
                    "type": "button",
                    "action_id": SUBSCRIBE_ACTION,
                    "style": "primary",
                    "text": {"type": "plain_text", "text": words["subscribe"]},
                }
            ],
        }
    )
    blocks += [{"type": "divider"}, _section(f"*{words['latest'].format(repo=escape(repo))}*")]
    for day in days:
        if site_url:
            base = site_url.rstrip("/")
            pages = " · ".join(
                link(f"{base}/{page_path(repo, day, lang)}", name) for lang, name in _LANGUAGES
            )
            blocks.append(_section(f"• {day}: {pages}"))
        else:
            blocks.append(_section(f"• {day}: `/vllm-report {day}`"))
    return {"type": "home", "blocks": blocks}


def _input(block: str, label: str, element: dict[str, Any], *, optional: bool) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block,
        "optional": optional,
        "label": {"type": "plain_text", "text": label},
        "element": element,
    }


def _options(pairs: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    return [{"text": {"type": "plain_text", "text": t}, "value": v} for v, t in pairs]


def subscribe_modal(*, timezone: str | None, lang: Lang) -> dict[str, Any]:
    """The "Subscribe a channel" modal: channel, schedule, day, time, time zone, language,
    topics; the time zone starts as the user's own."""
    words = messages.HOME
    zone_input: dict[str, Any] = {"type": "plain_text_input", "action_id": "value"}
    if timezone:
        zone_input["initial_value"] = timezone
    lang_options = _options(_LANGUAGES)
    return {
        "type": "modal",
        "callback_id": SUBSCRIBE_VIEW,
        "title": {"type": "plain_text", "text": words["modal_title"]},
        "submit": {"type": "plain_text", "text": words["modal_submit"]},
        "close": {"type": "plain_text", "text": words["modal_close"]},
        "blocks": [
            _input(
                "channel",
                words["channel"],
                {
                    "type": "conversations_select",
                    "action_id": "value",
                    "default_to_current_conversation": True,
                    "filter": {"include": ["public", "private"], "exclude_bot_users": True},
                },
                optional=False,
            ),
            _input(
                "schedule",
                words["schedule"],
                {
                    "type": "static_select",
                    "action_id": "value",
                    "options": _options([(c, c) for c in CADENCES]),
                    "initial_option": _options([("daily", "daily")])[0],
                },
                optional=False,
            ),
            _input(
                "day",
                words["day"],
                {
                    "type": "static_select",
                    "action_id": "value",
                    "options": _options([(d, d) for d in DAYS]),
                },
                optional=True,
            ),
            _input(
                "time",
                words["time"],
                {"type": "timepicker", "action_id": "value", "initial_time": "09:00"},
                optional=True,
            ),
            _input("tz", words["tz"], zone_input, optional=True),
            _input(
                "lang",
                words["lang"],
                {
                    "type": "static_select",
                    "action_id": "value",
                    "options": lang_options,
                    "initial_option": next(o for o in lang_options if o["value"] == lang),
                },
                optional=False,
            ),
            _input(
                "topics",
                words["topics"],
                {"type": "plain_text_input", "action_id": "value"},
                optional=True,
            ),
        ],
    }


def _value(values: Mapping[str, Any], block: str) -> str | None:
    state = (values.get(block) or {}).get("value") or {}
    for key in ("selected_conversation", "selected_time", "value"):
        if state.get(key):
            return str(state[key])
    option = state.get("selected_option") or {}
    return str(option["value"]) if option.get("value") else None


def submitted(view: Mapping[str, Any]) -> tuple[str, SubscribeCommand]:
    """The channel and the ``subscribe`` command of a submitted modal, checked by the grammar
    (a ``UsageError`` names what to fix)."""
    values = (view.get("state") or {}).get("values") or {}
    channel = _value(values, "channel") or ""
    schedule = _value(values, "schedule")
    day = _value(values, "day") if schedule == "weekly" else None
    command = subscribe_command(
        _value(values, "time"),
        _value(values, "tz"),
        _value(values, "topics"),
        None,
        command_options(None, _value(values, "lang")),
        schedule,
        day,
    )
    return channel, command
