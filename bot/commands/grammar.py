"""The command grammar shared by Slack, Discord and the command line.

    today | yesterday | week | Nd | DATE | DATE..DATE      a digest of that window
    topic NAME [WINDOW]                                     a digest of one focus topic
    ask QUESTION  (or any text ending in "?")               a short linked answer
    subscribe [daily | weekdays | weekly [mon..sun]] [time:HH:MM] [tz:ZONE] [topics:a,b]
              [writer:template|llm]
    unsubscribe | subscriptions | help
    settings [workspace] [reset] [lang:zh|en] [tz:ZONE] [repo:owner/name] [topics:a,b]
Options anywhere: ``repo:owner/name``, ``lang:zh|en``; ``private`` sends the answer by DM.
A digest also takes ``repo:a/b,c/d`` (one report over several repositories) or ``scope:NAME``
(a scope of the configuration).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from digest.errors import BadWindow
from digest.github.names import valid_repo
from digest.models import Lang, Pointer
from digest.windows import is_window_spec, parse_day_start, spec_of, unknown_window

_OPTION = re.compile(r"^(?:--)?([a-z]+)[:=](.*)$", re.I)
_TOPIC = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
_ZONE = re.compile(r"^[A-Za-z_]+(?:/[A-Za-z0-9_+-]+){0,2}$")
WRITERS = ("template", "llm")
MAX_QUESTION = 500


class UsageError(ValueError):
    """The command could not be understood; the message says how to fix it."""


@dataclass(frozen=True, slots=True)
class Options:
    """``repo`` is the repository named (the first of ``repos`` when ``repo:`` names
    several); ``scope`` a configured scope's name."""

    repo: str | None = None
    lang: Lang | None = None
    private: bool = False
    repos: tuple[str, ...] = ()  # ``repo:a/b,c/d``: every repository named, when several
    scope: str | None = None

    @property
    def several(self) -> bool:
        """Whether the options name more than one repository (or a scope)."""
        return len(self.repos) > 1 or self.scope is not None


@dataclass(frozen=True, slots=True)
class DigestCommand:
    window: str = "today"
    topics: tuple[str, ...] | None = None
    writer: str | None = None
    options: Options = Options()


@dataclass(frozen=True, slots=True)
class AskCommand:
    question: str
    options: Options = Options()


@dataclass(frozen=True, slots=True)
class SubscribeCommand:
    time: str | None = None
    timezone: str | None = None
    topics: tuple[str, ...] | None = None
    writer: str | None = None
    options: Options = Options()
    cadence: str = "daily"  # or "weekdays", "weekly"
    weekday: int = 0  # of a weekly post; 0 is Monday


@dataclass(frozen=True, slots=True)
class UnsubscribeCommand:
    options: Options = Options()


@dataclass(frozen=True, slots=True)
class ListSubscriptionsCommand:
    options: Options = Options()


@dataclass(frozen=True, slots=True)
class HelpCommand:
    options: Options = Options()


@dataclass(frozen=True, slots=True)
class SettingsCommand:
    """``settings``: show the channel's and workspace's defaults, or change one scope's."""

    scope: str = "channel"  # or "workspace" (a Slack workspace, a Discord server)
    timezone: str | None = None
    topics: tuple[str, ...] | None = None
    reset: bool = False
    options: Options = Options()

    @property
    def changes(self) -> bool:
        opts = self.options
        return self.reset or any(
            v is not None for v in (opts.lang, opts.repo, self.timezone, self.topics)
        )


Command = (
    DigestCommand
    | AskCommand
    | SubscribeCommand
    | UnsubscribeCommand
    | ListSubscriptionsCommand
    | HelpCommand
    | SettingsCommand
)


def _topics(value: str) -> tuple[str, ...]:
    names = tuple(n.strip().lower() for n in value.split(",") if n.strip())
    bad = [n for n in names if not _TOPIC.match(n)]
    if not names or bad:
        raise UsageError(f"bad topic list {value!r} (use names such as rocm or rocm,tpu)")
    return names


def _looks_like_question(text: str) -> bool:
    stripped = text.strip()
    if stripped.endswith(("?", "？")):
        return True
    first = stripped.split(maxsplit=1)[0].lower() if stripped else ""
    if first in {
        "what",
        "what's",
        "whats",
        "how",
        "why",
        "which",
        "who",
        "when",
        "any",
        "is",
        "are",
    }:
        return True
    return bool(re.search(r"[\u4e00-\u9fff]", stripped))


def parse(text: str) -> Command:
    """Parse one command line; raises ``UsageError`` with a helpful message."""
    text = (text or "").strip()
    if len(text) > 2000:
        raise UsageError("that command is too long")
    words = text.split()
    lead = 0  # options and ``private`` may come before a question too
    while lead < len(words) and (_OPTION.match(words[lead]) or words[lead].lower() in _PRIVATE):
        lead += 1
    first = words[lead].lower() if lead < len(words) else ""
    if first == "ask" or (
        first
        and first not in _KEYWORDS
        and not is_window_spec(first)
        and _looks_like_question(" ".join(words[lead:]))
    ):
        return _parse_ask(" ".join(words[:lead] + words[lead + (first == "ask") :]))

    opts: dict[str, str] = {}
    private = False
    rest: list[str] = []
    for word in words:
        match = _OPTION.match(word)
        if match and match[1].lower() in _OPTION_NAMES:
            key = match[1].lower()
            if key in opts:
                raise UsageError(f"the option {key}: is given twice")
            opts[key] = match[2]
        elif word.lower() in _PRIVATE:
            private = True
        else:
            rest.append(word)
    options = _options(opts, private)
    head = rest[0].lower() if rest else ""
    args = rest[1:]

    if head in ("help", "-h", "--help"):
        return HelpCommand(options)
    if head == "subscriptions":
        _no_more(args, "subscriptions")
        return ListSubscriptionsCommand(options)
    if head == "unsubscribe":
        _no_more(args, "unsubscribe")
        _one_repository(options, "unsubscribe")
        return UnsubscribeCommand(options)
    if head == "subscribe":
        return _subscribe(args, opts, options)
    if head == "settings":
        return _settings(args, opts, options)
    _reject(opts, ("time", "tz", "topics"), "only with subscribe")
    if head == "topic":
        if not args:
            raise UsageError("say which topic, e.g. `topic rocm` or `topic rocm week`")
        _no_more(args[2:], "topic")
        window = args[1] if len(args) > 1 else None
        return digest_command(window, args[0], opts.get("writer"), options)
    if head:
        _no_more(args, head)
    return digest_command(head or None, None, opts.get("writer"), options)


def digest_command(
    window: str | None = None,
    topics: str | None = None,
    writer: str | None = None,
    options: Options = Options(),
) -> DigestCommand:
    """A digest of ``window`` (default today), of the comma-separated ``topics`` if given."""
    spec = _window(window) if window is not None else "today"
    return DigestCommand(
        spec, _topics(topics) if topics is not None else None, _writer(writer), options
    )


def ask_command(question: str, options: Options = Options()) -> AskCommand:
    """A question, its spaces folded; refused when empty or too long."""
    text = " ".join(question.split())
    if not text:
        raise UsageError("ask what? e.g. `ask what's new in ROCm?`")
    if len(text) > MAX_QUESTION:
        raise UsageError(f"a question is at most {MAX_QUESTION} characters")
    return AskCommand(text, options)


def subscribe_command(
    time: str | None = None,
    zone: str | None = None,
    topics: str | None = None,
    writer: str | None = None,
    options: Options = Options(),
    schedule: str | None = None,
    day: str | None = None,
) -> SubscribeCommand:
    """A subscription (daily unless ``schedule`` says ``weekdays`` or ``weekly``; a ``day``
    makes it weekly); every part optional, each validated."""
    cadence, weekday_ = _schedule(schedule, day)
    if time is not None:
        try:
            parse_day_start(time)
        except BadWindow as exc:
            raise UsageError(str(exc)) from exc
    if zone is not None and not _ZONE.match(zone):
        raise UsageError(f"unknown timezone {zone!r} (use an IANA name such as Europe/Berlin)")
    return SubscribeCommand(
        time,
        zone,
        _topics(topics) if topics is not None else None,
        _writer(writer),
        options,
        cadence=cadence,
        weekday=weekday_,
    )


CADENCES = ("daily", "weekdays", "weekly")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def weekday(word: str) -> int:
    """``mon`` (or ``monday``) to ``sun`` as 0 to 6; anything else is a ``UsageError``."""
    name = word.lower()
    for index, (short, full) in enumerate(zip(DAYS, _DAY_NAMES, strict=True)):
        if name in (short, full):
            return index
    raise UsageError(f"unknown day {word!r} (use mon, tue, wed, thu, fri, sat or sun)")


def _schedule(schedule: str | None, day: str | None) -> tuple[str, int]:
    """The cadence and weekday of ``[daily | weekdays | weekly [DAY]]``; a day means weekly."""
    cadence = schedule.lower() if schedule else ("weekly" if day else "daily")
    if cadence not in CADENCES:
        raise UsageError(
            f"unknown schedule {schedule!r} "
            "(use daily, weekdays or weekly, e.g. `subscribe weekly mon`)"
        )
    if day is not None and cadence != "weekly":
        raise UsageError(f"a day works only with the weekly schedule, not {cadence}")
    return cadence, weekday(day) if day is not None else 0


_PRIVATE = ("private", "dm")
_KEYWORDS = {"help", "subscribe", "unsubscribe", "subscriptions", "settings", "topic", *_PRIVATE}
_OPTION_NAMES = {"repo", "lang", "time", "tz", "topics", "writer", "scope"}
_SCOPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


def _parse_ask(question: str) -> AskCommand:
    """A question; ``private`` counts as the option before it or right after its "?"."""
    opts: dict[str, str] = {}
    kept: list[str] = []
    private = False
    for word in question.split():
        match = _OPTION.match(word)
        if match and match[1].lower() in ("repo", "lang"):
            opts[match[1].lower()] = match[2]
        elif not kept and word.lower() in _PRIVATE:
            private = True
        else:
            kept.append(word)
    if len(kept) > 1 and kept[-1].lower() in _PRIVATE and kept[-2].endswith(("?", "？")):
        kept.pop()
        private = True
    return ask_command(" ".join(kept), _options(opts, private))


def _options(opts: dict[str, str], private: bool) -> Options:
    return command_options(opts.get("repo"), opts.get("lang"), private, opts.get("scope"))


def command_options(
    repo: str | None = None,
    lang: str | None = None,
    private: bool = False,
    scope: str | None = None,
) -> Options:
    """The options every command takes, validated: ``repo:owner/name`` (or ``repo:a/b,c/d``),
    ``scope:NAME``, ``lang:zh|en``."""
    names = tuple(dict.fromkeys(n.strip() for n in (repo or "").split(",") if n.strip()))
    for name in names:
        if not valid_repo(name):
            raise UsageError(
                f"{name!r} is not a repository (use owner/name, e.g. vllm-project/vllm)"
            )
    if repo is not None and not names:
        raise UsageError(f"{repo!r} is not a repository (use owner/name, e.g. vllm-project/vllm)")
    if scope is not None and not _SCOPE.match(scope):
        raise UsageError(f"{scope!r} is not a scope name (letters, digits, - and _)")
    if scope is not None and names:
        raise UsageError("name a scope or repositories, not both")
    language = None if lang is None else Lang.parse(lang)
    if lang is not None and language is None:
        raise UsageError(f"unknown language {lang!r} (use zh or en)")
    return Options(
        names[0] if names else None, language, private, names if len(names) > 1 else (), scope
    )


def _writer(value: str | None) -> str | None:
    if value is not None and value.lower() not in WRITERS:
        raise UsageError(f"unknown writer {value!r} (use template or llm)")
    return value.lower() if value else None


def _window(word: str) -> str:
    if not is_window_spec(word):
        raise UsageError(str(unknown_window(word)))
    return word.lower()


def _no_more(args: list[str], command: str) -> None:
    if args:
        raise UsageError(f"unexpected {' '.join(args)!r} after {command} (see `help`)")


def _reject(opts: dict[str, str], keys: tuple[str, ...], why: str) -> None:
    for key in keys:
        if key in opts:
            raise UsageError(f"the option {key}: works {why}")


_WORKSPACE = ("workspace", "server", "guild")


def _settings(args: list[str], opts: dict[str, str], options: Options) -> SettingsCommand:
    """``settings [workspace] [reset]`` with ``lang:``, ``tz:``, ``repo:`` and ``topics:``."""
    _one_repository(options, "settings")
    _reject(opts, ("time", "writer"), "only with subscribe")
    if options.private:
        raise UsageError("settings are shown and changed in the channel, not by direct message")
    words = [a.lower() for a in args]
    scope = "channel"
    if words and words[0] in _WORKSPACE:
        scope, words = "workspace", words[1:]
    reset = bool(words) and words[0] == "reset"
    _no_more(words[1:] if reset else words, "settings")
    return settings_command(scope, opts.get("tz"), opts.get("topics"), reset, options)


def settings_command(
    scope: str = "channel",
    zone: str | None = None,
    topics: str | None = None,
    reset: bool = False,
    options: Options = Options(),
) -> SettingsCommand:
    """Show (nothing given), change or ``reset`` the defaults of a channel or workspace."""
    if scope not in ("channel", "workspace"):
        raise UsageError(f"settings are kept per channel or workspace, not {scope!r}")
    names = _topics(topics) if topics is not None else None
    command = SettingsCommand(scope, _zone(zone), names, reset, options)
    if reset and (zone or names or options.lang or options.repo):
        raise UsageError("`settings reset` takes no options: it clears every default of its scope")
    return command


def _zone(value: str | None) -> str | None:
    if value is not None and not _ZONE.match(value):
        raise UsageError(f"unknown timezone {value!r} (use an IANA name such as Europe/Berlin)")
    return value


def _one_repository(options: Options, command: str) -> None:
    """``command`` takes one repository: several, or a scope, are a ``UsageError``."""
    if options.several:
        raise UsageError(f"`{command}` takes one repository (repo:owner/name), not several")


def _subscribe(args: list[str], opts: dict[str, str], options: Options) -> SubscribeCommand:
    _one_repository(options, "subscribe")
    schedule = args[0] if args else None
    day = args[1] if len(args) > 1 and schedule and schedule.lower() == "weekly" else None
    _no_more(args[2 if day else 1 :], f"subscribe {schedule}" if schedule else "subscribe")
    return subscribe_command(
        opts.get("time"),
        opts.get("tz"),
        opts.get("topics"),
        opts.get("writer"),
        options,
        schedule,
        day,
    )


def command_line(pointer: Pointer) -> str:
    """The command that asks for ``pointer``: ``topic rocm week repo:o/r`` or ``ask …``."""
    if pointer.question is not None:
        return f"ask {pointer.question}"
    spec = spec_of(pointer.window) if pointer.window is not None else "today"
    option = f" repo:{pointer.repo}" if pointer.repo else ""
    return f"topic {pointer.topic} {spec}{option}" if pointer.topic else f"{spec}{option}"
