"""The words of a refusal by a rate limit or by the GitHub reserve, and of the correction of
a daily post. key: (zh, en)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from digest.models import Lang
from digest.state.limiter import Rate, Refusal

LIMITS: Mapping[str, tuple[str, str]] = {
    "limit.user": (
        "你已达到{what}上限（{rate}），请在 {when}（约 {minutes} 分钟后）再试。",
        "You have reached your limit of {what} ({rate}); try again after {when} "
        "(in about {minutes} min).",
    ),
    "limit.channel": (
        "本频道已达到{what}上限（{rate}），请在 {when}（约 {minutes} 分钟后）再试。",
        "This channel has reached its limit of {what} ({rate}); try again after {when} "
        "(in about {minutes} min).",
    ),
    "limit.other": (
        "已达到{what}上限（{rate}），请在 {when}（约 {minutes} 分钟后）再试。",
        "The limit of {what} ({rate}) is reached; try again after {when} (in about {minutes} min).",
    ),
    "limit.what.digest": ("报告请求", "digests"),
    "limit.what.question": ("提问", "questions"),
    "limit.what.button": ("按钮点击", "button clicks"),
    "limit.what.call": ("调用", "calls"),
    # {count} per {n} units: "每 10 分钟 10 次" / "10 per 10 minutes"
    "limit.rate.minutes": ("每 {n} 分钟 {count} 次", "{count} per {n} minutes"),
    "limit.rate.minute": ("每分钟 {count} 次", "{count} per minute"),
    "limit.rate.hours": ("每 {n} 小时 {count} 次", "{count} per {n} hours"),
    "limit.rate.hour": ("每小时 {count} 次", "{count} per hour"),
    "limit.rate.days": ("每 {n} 天 {count} 次", "{count} per {n} days"),
    "limit.rate.day": ("每天 {count} 次", "{count} per day"),
    "limit.reserve": (
        "机器人正在为每日推送保留 GitHub 请求额度，请在 {when}（约 {minutes} 分钟后）再试。",
        "The bot is saving its GitHub budget for the daily posts; try again after {when} "
        "(in about {minutes} min).",
    ),
    "post.corrected": (
        "更正：本期报告发布时 GitHub 同步尚未完成（已达速率限制），现已补全，完整数据如下：",
        "Correction: this digest went out before the GitHub sync had caught up (rate limit); "
        "it has now, and the complete figures are:",
    ),
}


def _t(key: str, lang: Lang, **values: object) -> str:
    from digest.i18n.catalog import t  # the catalog chains this module's words

    return t(key, lang, **values)


def rate_words(rate: Rate, lang: Lang) -> str:
    """``10 per 10 minutes`` / ``每 10 分钟 10 次``."""
    seconds = int(rate.period.total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            key = f"limit.rate.{unit}" if n == 1 else f"limit.rate.{unit}s"
            return _t(key, lang, count=rate.count, n=n)
    return _t("limit.rate.minutes", lang, count=rate.count, n=round(seconds / 60, 1))


def retry_words(at: datetime, now: datetime | None = None) -> dict[str, object]:
    """``when`` (``HH:MM UTC``, rounded up to the minute) and ``minutes`` until ``at``."""
    now = now or datetime.now(UTC)
    shown = at.astimezone(UTC)
    if shown.second or shown.microsecond:
        shown = shown.replace(second=0, microsecond=0) + timedelta(minutes=1)
    minutes = max(1, math.ceil((at - now).total_seconds() / 60))
    return {"when": shown.strftime("%H:%M UTC"), "minutes": minutes}


def refusal_text(refusal: Refusal, lang: Lang, now: datetime | None = None) -> str:
    """What the limit is and when to try again, in ``lang``."""
    scope = refusal.scope if refusal.scope in ("user", "channel") else "other"
    kind = f"limit.what.{refusal.kind}"
    what = _t(kind, lang) if kind in LIMITS else refusal.kind
    return _t(
        f"limit.{scope}",
        lang,
        what=what,
        rate=rate_words(refusal.rate, lang),
        **retry_words(refusal.retry_at, now),
    )


def reserve_text(reset_at: datetime | None, lang: Lang, now: datetime | None = None) -> str:
    """ "The bot is saving its GitHub budget for the daily posts; try again after HH:MM"."""
    if reset_at is None:
        return _t("limit.reserve", lang, when="?", minutes="?")
    return _t("limit.reserve", lang, **retry_words(reset_at, now))


def correction_text(counts_line: str, lang: Lang) -> str:
    """The correction in a daily post's thread: why, then the complete figures."""
    return f"{_t('post.corrected', lang)} {counts_line}"
