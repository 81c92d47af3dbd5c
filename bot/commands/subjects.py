"""What a command reports on: one repository, several, or a configured scope.

The grammar reads ``repo:a/b,c/d`` and ``scope:NAME`` into :class:`Options`; these helpers
check them against the configuration (an unknown scope lists the configured ones).
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.commands.grammar import AskCommand, DigestCommand, Options, UsageError
from config.settings import AppConfig
from digest.errors import ConfigError
from digest.schedule.subscription import Subscription
from digest.scope import Scope


def configured_scope(config: AppConfig, name: str) -> Scope:
    """The configured scope ``name`` (any case); an unknown one is a ``UsageError`` naming
    the configured scopes."""
    try:
        return config.scope(name)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc


def subject_repos(config: AppConfig, options: Options) -> tuple[str, ...]:
    """The repositories ``options`` name (none when they name no subject)."""
    if options.scope:
        return configured_scope(config, options.scope).repos
    if options.repos:
        return options.repos
    return (options.repo,) if options.repo else ()


def subject_words(options: Options) -> str:
    """How a reply names the subject: ``scope serving``, ``a/b + c/d`` or ``a/b``."""
    if options.scope:
        return f"scope {options.scope}"
    return " + ".join(options.repos) if options.repos else options.repo or ""


def one_repo_questions(options: Options) -> str:
    """Why a question over ``options``' several repositories gets no answer, and what to ask."""
    return (
        f"a question covers one repository, not {subject_words(options)}: name one with "
        f"repo:owner/name, or ask for the report, e.g. `topic rocm week{options.subject_option}`"
    )


def subject_key(options: Options) -> str | None:
    """The subject as a subscription names it (``owner/name``, ``scope:NAME``, ``a/b,c/d``);
    None when the options name none."""
    if options.scope:
        return f"scope:{options.scope}"
    return ",".join(options.repos) if options.repos else options.repo


def _options_of(subscription: Subscription) -> Options:
    return Options(subscription.repo, repos=subscription.repos, scope=subscription.scope)


def subscription_repos(config: AppConfig, subscription: Subscription) -> tuple[str, ...]:
    """The repositories ``subscription`` reports on (a scope's, as configured now)."""
    return subject_repos(config, _options_of(subscription))


def shown_subject(subscription: Subscription) -> str:
    """How a reply names what ``subscription`` reports on."""
    return subject_words(_options_of(subscription))


def shown_key(subject: str) -> str:
    """How a reply names a subscription's ``subject`` (``scope:NAME``, ``a/b,c/d``, ``o/r``)."""
    if subject.startswith("scope:"):
        return f"scope {subject.removeprefix('scope:')}"
    return " + ".join(subject.split(","))


_ACROSS = re.compile(
    r"\s+(?:across|over)\s+(?:the\s+)?([A-Za-z0-9][A-Za-z0-9_-]{0,39})\s*([?？]?)\s*$", re.I
)
_WINDOW_WORDS = (("yesterday", "yesterday"), ("today", "today"), ("昨天", "yesterday"))


def across(config: AppConfig, command: AskCommand) -> AskCommand | DigestCommand:
    """A question over a scope (``... across serving?`` naming a configured scope, or
    ``scope:``/``repo:a/b,c/d``) that names a configured topic is that topic's report over the
    scope (this week, or today or yesterday when it says so); any other question is as asked.
    """
    options, text = command.options, command.question
    found = _ACROSS.search(text)
    if found is not None and not options.names_subject:
        name = next((n for n in config.scopes if n.lower() == found[1].lower()), None)
        if name is not None:
            options = replace(options, scope=name)
            text = text[: found.start()] + found[2]
    if not (options.repos or options.scope):
        return command
    topic = _topic_in(config, text)
    if topic is None:
        return replace(command, question=text, options=options)
    lowered = text.lower()
    window = next((spec for word, spec in _WINDOW_WORDS if word in lowered), "week")
    return DigestCommand(window, (topic,), None, options)


def _topic_in(config: AppConfig, text: str) -> str | None:
    """The configured topic ``text`` names (its name or one of its synonyms, as a word)."""
    words = set(re.findall(r"[\w.+-]+", text.lower()))
    for name in sorted(config.topics):
        topic = config.topic(name)
        if words & {name.lower(), *(s.lower() for s in topic.synonyms)}:
            return name
    return None
