"""Every user-facing message of the chat front ends and the command line, in one place."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from bot.commands.grammar import UsageError
from digest import i18n
from digest.errors import (
    BadWindow,
    ConfigError,
    DigestError,
    NotFound,
    RateLimited,
    RepoRefused,
    SearchRefused,
    SourceUnavailable,
    StateUnavailable,
)
from digest.github.reserve import BudgetReserved
from digest.i18n import counts_line
from digest.i18n.limits import correction_text, refusal_text, reserve_text
from digest.models import Digest, Lang
from digest.state.limiter import Limited
from digest.windows import format_moment, format_window

if TYPE_CHECKING:
    from bot.commands.defaults import Defaults

Platform = Literal["slack", "discord"]

_HELP = """\
{b}vllm-report{b}: what happened in a GitHub repository, in one digest.
{how}

{b}Digests{b}
`today` · `yesterday` · `week` · `3d` · `2026-03-10` · `2026-03-01..2026-03-07`
`topic rocm week`: one focus topic only
{b}Questions{b}
`ask what's new in ROCm?` (or mention me with a question)
{b}Scheduled posts{b} ({managers})
`subscribe time:09:00 tz:Europe/Berlin topics:rocm lang:zh` (every option is optional)
`subscribe weekdays` (Monday to Friday) · `subscribe weekly mon time:09:00` (the last 7 days)
`unsubscribe` · `subscriptions`
{b}Defaults{b} (language, time zone, repository, topics for every command here)
`settings` shows them · `settings lang:zh tz:Europe/Berlin` for this channel ({managers}) · \
`settings workspace lang:zh` for the whole {workspace} ({workspace_managers}) · `settings reset`
{b}Options anywhere{b}: `repo:owner/name` · `repo:a/b,c/d` (one report over several) · \
`scope:NAME` (a configured scope) · `lang:zh` or `lang:en` · `private` (sent to you by direct \
message)
"""
_BOLD = {"slack": "*", "discord": "**"}
_HOW = {
    "slack": "Type `/vllm-report` and a command, mention me with one, or send me a direct message.",
    "discord": (
        "Use `/vllm-report`, `/vllm-ask`, `/vllm-subscribe`, `/vllm-unsubscribe` and "
        "`/vllm-subscriptions`, or mention me with a command."
    ),
}
_MANAGERS = {
    "slack": "workspace admins and owners, and the channel's creator",
    "discord": "members with the Manage Channels permission",
}
_HELP_HINT = {"slack": "`/vllm-report help`", "discord": "`/vllm-help`"}
_WORKSPACE = {"slack": "workspace", "discord": "server"}
_WORKSPACE_MANAGERS = {
    "slack": "workspace admins and owners",
    "discord": "members with the Manage Server permission",
}
_SETTINGS_CALL = {"slack": "/vllm-report settings", "discord": "/vllm-settings"}


def help_text(platform: Platform) -> str:
    """The commands, in the platform's own markup and with its way of calling them."""
    return _HELP.format(
        b=_BOLD[platform],
        how=_HOW[platform],
        managers=_MANAGERS[platform],
        workspace=_WORKSPACE[platform],
        workspace_managers=_WORKSPACE_MANAGERS[platform],
    )


WORKING = "Working on it… the digest will be posted here in a moment."
WORKING_PRIVATE = "Working on it… I'll send the digest to you by direct message."
SENT_PRIVATE = "Sent to you by direct message."
INTERNAL = (
    "Something went wrong on our side while building that. It has been logged; please try again."
)
NOT_IN_CHANNEL = (
    "I'm not a member of this channel, so I can't post the digest here. "
    "Invite me with `/invite @vllm-report`, or add `private` to get it by direct message."
)
CANNOT_DM = (
    "I couldn't send you a direct message. Check that direct messages from apps are allowed."
)
NO_SUBSCRIPTIONS = "This channel has no daily digest. Start one with `subscribe`."
STATE_UNAVAILABLE = (
    "Subscriptions can't be read or changed right now: the bot's shared storage is "
    "unreachable. Digests and questions still work; please try again in a few minutes."
)
QUIET_DAY = {
    Lang.EN: "Quiet day in {repo}: no new or closed issues or pull requests in {window}.",
    Lang.ZH: "{repo} 今日无动态：{window} 内没有新建或关闭的 Issue 与 PR。",
}
LATE_POST = {
    Lang.EN: "Posted late: this daily digest was due at {due}.",
    Lang.ZH: "延迟发布：本期日报原定于 {due} 发布。",
}


def correction(digest: Digest) -> str:
    """The correction of a daily post that went out behind: the complete figures."""
    return correction_text(counts_line(digest.counts, digest.lang), digest.lang)


def managers_only(platform: Platform) -> str:
    """The refusal of a subscription change, naming who counts as a channel manager."""
    return (
        "Only channel managers can change this channel's subscriptions "
        f"(here: {_MANAGERS[platform]})."
    )


def usage(error: UsageError, platform: Platform | None = None) -> str:
    hint = _HELP_HINT[platform] if platform else "`vllm-report --help`"
    return f"Sorry, I didn't understand that: {error}. Type {hint} for the commands."


def rate_limited(error: RateLimited, now: datetime | None = None) -> str:
    when = ""
    if error.reset_at is not None:
        minutes = max(1, round((error.reset_at - (now or datetime.now(UTC))).total_seconds() / 60))
        when = f" It resets at {error.reset_at:%H:%M} UTC (in about {minutes} min)."
    hint = (
        ""
        if error.authenticated
        else " Setting GITHUB_TOKEN raises the limit from 60 to 5,000 requests an hour."
    )
    return f"GitHub's rate limit is used up.{when}{hint}"


def error_text(
    error: BaseException, now: datetime | None = None, *, platform: Platform | None = None
) -> str:
    """The one-line wording of ``error`` shown to a user; never a stack trace."""
    if isinstance(error, UsageError):
        return usage(error, platform)
    if isinstance(error, BadWindow):
        return f"That window doesn't work: {error}."
    if isinstance(error, RepoRefused):
        from bot.commands.following import refusal

        return refusal(error)
    if isinstance(error, NotFound):
        return (
            f"I couldn't find {error.what} on GitHub. "
            "Check the owner/name spelling (and that it is public)."
        )
    if isinstance(error, Limited):
        return refusal_text(error.refusal, error.lang, now)
    if isinstance(error, BudgetReserved):
        return reserve_text(error.reset_at, error.lang, now)
    if isinstance(error, RateLimited):
        return rate_limited(error, now)
    if isinstance(error, SearchRefused):
        return f"{error}; the digest of that window needs GitHub's search."
    if isinstance(error, SourceUnavailable):
        return f"GitHub can't be reached right now ({error}). Please try again in a few minutes."
    if isinstance(error, ConfigError):
        return f"Configuration problem: {error}."
    if isinstance(error, StateUnavailable):
        return STATE_UNAVAILABLE
    if isinstance(error, DigestError):
        return f"Couldn't build the digest: {error}."
    return INTERNAL


def command_line_error(error: BaseException, now: datetime | None = None) -> str:
    """The line the command line prints for ``error`` (after ``vllm-report: ``); the MCP
    tools return the same words."""
    if isinstance(error, UsageError):
        return f"{error} (see vllm-report --help)"
    if isinstance(error, DigestError):
        return error_text(error, now)
    return f"internal error ({type(error).__name__}); run with -v for details"


SYNCING = "Fetching {repo} from GitHub for {window}; a first fetch can take a minute."
STILL_SYNCING = "Still fetching {repo} from GitHub ({seconds} s so far)."
SYNCED = "Fetched {repo} from GitHub."
STILL_WORKING = "Still working on {repo} ({seconds} s so far)."
DONE = "Done."


_DAY_WORDS = {
    "mon": "Monday",
    "tue": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}


def schedule_words(cadence: str, day: str, time: str) -> str:
    """``daily at 09:00``, ``weekdays at 09:00`` or ``weekly on Monday at 09:00 (the last 7
    days)``."""
    if cadence == "weekly":
        return f"weekly on {_DAY_WORDS.get(day, day)} at {time} (the last 7 days)"
    if cadence == "weekdays":
        return f"weekdays (Monday to Friday) at {time}"
    return f"daily at {time}"


def subscribed(repo: str, schedule: str, timezone: str, lang: Lang, next_post: str) -> str:
    """The confirmation of ``subscribe``: what, when, and the next post in the channel's zone."""
    return (
        f"Subscribed: a {repo} digest in {lang}, {schedule} ({timezone}), in this channel. "
        f"Next post: {next_post}."
    )


def unsubscribed(repo: str) -> str:
    return f"Unsubscribed: no more scheduled {repo} digests in this channel."


def subscription_line(repo: str, schedule: str, timezone: str, lang: Lang) -> str:
    """One line of ``subscriptions``."""
    return f"• {repo}: {schedule} ({timezone}) in {lang}"


def subscriptions_list(lines: Sequence[str]) -> str:
    """The channel's scheduled digests, one :func:`subscription_line` each."""
    return "Scheduled digests in this channel:\n" + "\n".join(lines)


SUBSCRIPTIONS_OFF = "Daily posts aren't enabled on this bot (it has no subscription store)."


def quiet_day(repo: str, window: str, lang: Lang = Lang.EN) -> str:
    """The one-line daily post of a window with no activity, in the digest's language."""
    return QUIET_DAY[lang].format(repo=repo, window=window)


def late_post(due: str, lang: Lang = Lang.EN) -> str:
    """The note on a daily digest posted after its time (after downtime or retries)."""
    return LATE_POST[lang].format(due=due)


def _late_note(digest: Digest) -> str:
    due = format_moment(digest.window.end, digest.window.timezone)
    return late_post(due, digest.lang)


def daily_digest(digest: Digest, *, late: bool) -> Digest:
    """``digest`` with a visible note when it is posted after its time."""
    if not late:
        return digest
    return dataclasses.replace(digest, notes=(_late_note(digest), *digest.notes))


def quiet_text(digest: Digest, *, late: bool = False) -> str:
    """The one line posted instead of a digest of a day without activity (late ones say so)."""
    window = format_window(digest.window)
    if digest.scope or digest.several:
        repos = i18n.join_words(digest.repos or (digest.repo,), digest.lang)
        key = "quiet.scope" if digest.unfiltered is None else "quiet.scope_filtered"
        line = i18n.t(key, digest.lang, name=digest.shown_name, repos=repos, window=window)
    else:
        line = quiet_day(digest.repo, window, digest.lang)
    return f"{line} {_late_note(digest)}" if late else line


def daily_post(digest: Digest, *, late: bool, quiet: bool) -> Digest | str:
    """What a daily run posts: the quiet-day line, or the digest (with a note when late)."""
    return quiet_text(digest, late=late) if quiet else daily_digest(digest, late=late)


CUT_SHORT = {
    Lang.EN: (
        "The {repo} digest asked for here ({window}) was cut short by a restart after "
        "{parts} of its messages. Ask for it again to read the rest."
    ),
    Lang.ZH: (
        "此处请求的 {repo} 报告（{window}）在发出 {parts} 条消息后因重启中断，"
        "请重新获取以查看其余内容。"
    ),
}


def cut_short(repo: str, window: str, parts: int, lang: Lang = Lang.EN) -> str:
    """The note in a command's thread that a replica left short and nobody can complete."""
    return CUT_SHORT[lang].format(repo=repo, window=window, parts=parts)


SETTINGS_OFF = "Defaults can't be kept on this bot (it has no shared storage)."
NO_WORKSPACE = "This conversation belongs to no workspace or server: use `settings` for it alone."


def workspace_managers_only(platform: Platform) -> str:
    """The refusal of a change of the workspace's (server's) defaults."""
    return (
        f"Only {_WORKSPACE_MANAGERS[platform]} can change this {_WORKSPACE[platform]}'s defaults."
    )


def _defaults_words(found: Defaults) -> str:
    parts = [
        f"language {found.lang}" if found.lang else "",
        f"time zone {found.timezone}" if found.timezone else "",
        f"repository {found.repo}" if found.repo else "",
        f"repositories {', '.join(found.repos)}" if found.repos else "",
        f"scope {found.scope}" if found.scope else "",
        f"topics {', '.join(found.topics)}" if found.topics is not None else "",
    ]
    return " · ".join(p for p in parts if p) or "none"


def settings_view(channel: Defaults, workspace: Defaults, platform: Platform) -> str:
    """``settings`` alone: the channel's and the workspace's defaults, and how to change them."""
    call = _SETTINGS_CALL[platform]
    return "\n".join(
        [
            "Defaults for commands here (a command's own options always win):",
            f"• this channel: {_defaults_words(channel)}",
            f"• this {_WORKSPACE[platform]}: {_defaults_words(workspace)}",
            "Otherwise your own language setting is used, then the bot's default.",
            f"Change them with `{call} lang:zh tz:Europe/Berlin repo:owner/name topics:rocm` "
            f"(this channel) or `{call} workspace lang:zh` (the whole {_WORKSPACE[platform]}); "
            f"`{call} reset` clears them.",
        ]
    )


def settings_saved(scope: str, now: Defaults, platform: Platform) -> str:
    """The confirmation of a change of defaults, shown to the channel."""
    where = "this channel" if scope == "channel" else f"this {_WORKSPACE[platform]}"
    return f"Defaults for {where}: {_defaults_words(now)}."


_ZONE_SOURCE = {
    "user": "your time zone (from your {platform} profile)",
    "channel": "this channel's default time zone",
    "workspace": "this {workspace}'s default time zone",
    "repo": "the repository's report time zone",
}
_PLATFORM_NAMES = {"slack": "Slack", "discord": "Discord"}


def zone_source(source: str, timezone: str, platform: Platform) -> str:
    """Where the time zone of a subscription made without ``tz:`` came from, and how to change
    it."""
    what = _ZONE_SOURCE.get(source, _ZONE_SOURCE["repo"]).format(
        platform=_PLATFORM_NAMES[platform], workspace=_WORKSPACE[platform]
    )
    return (
        f"Time zone {timezone} is {what}; choose another with `subscribe tz:Europe/Berlin`, "
        f"or set this channel's with `{_SETTINGS_CALL[platform]} tz:Europe/Berlin`."
    )


BUTTON_FORGED = (
    "that button was not made by this bot (its signature does not match), so it does nothing"
)
BUTTON_STALE = (
    "that button comes from an older version of the bot and no longer works; "
    "type the command instead"
)
_BUTTON_WORDS = {
    Lang.EN: {"prev": "◀ Previous day", "next": "Next day ▶", "lang": "中文", "web": "Web page"},
    Lang.ZH: {"prev": "◀ 前一天", "next": "后一天 ▶", "lang": "English", "web": "网页版"},
}


_CONTINUED = {Lang.EN: "continued in the thread", Lang.ZH: "完整内容见讨论串"}


def continued(lang: Lang) -> str:
    """The end of a parent message whose text goes on in its thread (Discord)."""
    return _CONTINUED[lang]


def button_refused(reason: str) -> str:
    """The answer to a click on a button whose value cannot be trusted."""
    return f"Sorry, {reason}."


def button_words(lang: Lang) -> dict[str, str]:
    """The labels of a digest's buttons in the digest's language (the language button names
    the other language in its own words)."""
    return _BUTTON_WORDS[lang]


HOME = {
    "title": "vllm-report",
    "subscriptions": "Scheduled digests in this workspace",
    "none": "No channel has a scheduled digest yet. Subscribe one with the button below or "
    "`/vllm-report subscribe` in the channel.",
    "more": "…and {n} more (see `/vllm-report subscriptions` in each channel).",
    "subscribe": "Subscribe a channel",
    "latest": "Latest digests of {repo}",
    "modal_title": "Subscribe a channel",
    "modal_submit": "Subscribe",
    "modal_close": "Cancel",
    "channel": "Channel",
    "schedule": "Schedule",
    "day": "Day (weekly only)",
    "time": "Time",
    "tz": "Time zone (IANA, e.g. Europe/Berlin)",
    "lang": "Language",
    "topics": "Topics (e.g. rocm)",
}


def home_subscription_line(
    channel: str,
    repo: str,
    schedule: str,
    timezone: str,
    lang: Lang,
    next_post: str,
    *,
    gone: str | None = None,
) -> str:
    """One subscription on the Home tab; ``gone`` (its repository stopped answering) in place
    of the next post."""
    head = f"• {channel}: {repo}, {schedule} ({timezone}) in {lang}"
    return f"{head}{gone}" if gone is not None else f"{head}. Next post: {next_post}."
