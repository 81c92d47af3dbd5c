"""What a command reports on: one repository, several, or a configured scope.

The grammar reads ``repo:a/b,c/d`` and ``scope:NAME`` into :class:`Options`; these helpers
check them against the configuration (an unknown scope lists the configured ones).
"""

from __future__ import annotations

from bot.commands.grammar import Options, UsageError
from config.settings import AppConfig
from digest.errors import ConfigError
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
