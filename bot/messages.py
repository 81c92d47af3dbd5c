"""Every user-facing message of the chat front ends and the command line, in one place."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bot.grammar import UsageError
from digest.errors import (
    BadWindow,
    ConfigError,
    DigestError,
    NotFound,
    RateLimited,
    SourceUnavailable,
)

HELP = """\
*vllm-report* — what happened in a GitHub repository, in one digest.

Digests:
  today · yesterday · week · 3d · 2026-03-10 · 2026-03-01..2026-03-07
  topic rocm [week]            one focus topic only
Questions:
  ask what's new in ROCm?      (or mention the bot with a question)
Daily posts (channel managers):
  subscribe [time:09:00] [tz:Europe/Berlin] [topics:rocm] [lang:zh]
  unsubscribe · subscriptions
Options anywhere: repo:owner/name · lang:zh|en · private (send it to me by DM)
"""

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
MANAGERS_ONLY = "Only channel managers can change this channel's subscriptions."
NO_SUBSCRIPTIONS = "This channel has no daily digest. Start one with `subscribe`."
QUIET_DAY = "Quiet day in {repo}: no new or closed issues or pull requests in {window}."


def usage(error: UsageError) -> str:
    return f"Sorry, I didn't understand that: {error}. Type `help` for the commands."


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


def error_text(error: BaseException, now: datetime | None = None) -> str:
    """The one-line wording of ``error`` shown to a user; never a stack trace."""
    if isinstance(error, UsageError):
        return usage(error)
    if isinstance(error, BadWindow):
        return f"That window doesn't work: {error}."
    if isinstance(error, NotFound):
        return (
            f"I couldn't find {error.what} on GitHub. "
            "Check the owner/name spelling (and that it is public)."
        )
    if isinstance(error, RateLimited):
        return rate_limited(error, now)
    if isinstance(error, SourceUnavailable):
        return f"GitHub can't be reached right now ({error}). Please try again in a few minutes."
    if isinstance(error, ConfigError):
        return f"Configuration problem: {error}."
    if isinstance(error, DigestError):
        return f"Couldn't build the digest: {error}."
    return INTERNAL


def subscribed(repo: str, time: str, timezone: str, lang: str) -> str:
    return f"Subscribed: a daily {repo} digest in {lang} at {time} ({timezone}) in this channel."


def unsubscribed(repo: str) -> str:
    return f"Unsubscribed: no more daily {repo} digests in this channel."


def subscriptions_list(entries: Sequence[tuple[str, str, str, str]]) -> str:
    """The channel's daily digests, one line each from (repo, time, timezone, lang)."""
    lines = [f"• {repo}: daily at {time} ({zone}) in {lang}" for repo, time, zone, lang in entries]
    return "Daily digests in this channel:\n" + "\n".join(lines)


SUBSCRIPTIONS_OFF = "Daily posts aren't enabled on this bot (it has no subscription store)."


def quiet_day(repo: str, window: str) -> str:
    """The one-line daily post of a window with no activity."""
    return QUIET_DAY.format(repo=repo, window=window)


def late_post(due: str) -> str:
    """The note on a daily digest posted after its time (after downtime or retries)."""
    return f"Posted late: this daily digest was due at {due}."
