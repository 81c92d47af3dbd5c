"""``vllm-report site build``: its arguments, their checks and the line it prints."""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

from bot.commands.following import allow_list
from bot.commands.grammar import UsageError
from bot.site.build import SiteOptions, SiteReport
from config.settings import AppConfig, Settings
from digest.errors import ConfigError, RepoRefused
from digest.github.names import valid_repo
from digest.models import Lang
from digest.scope import is_owner_entry

MAX_DAYS = 366


def site_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-report site",
        description="Build the static report website from the mirror.",
    )
    commands = parser.add_subparsers(dest="action", required=True, metavar="build")
    build = commands.add_parser("build", help="build the site (see vllm-report site build -h)")
    build.add_argument(
        "--out",
        metavar="DIR",
        help="where to write the site (default: VLLM_REPORT_SITE_DIR, else ./site)",
    )
    build.add_argument(
        "--repo",
        action="append",
        metavar="OWNER/NAME",
        help="repository (repeatable; default: every configured repository and scope)",
    )
    build.add_argument(
        "--scope",
        action="append",
        metavar="NAME",
        help="configured scope, built under scopes/NAME/ (repeatable; default: every one)",
    )
    span = build.add_mutually_exclusive_group()
    span.add_argument("--days", type=int, default=30, metavar="N", help="report days (default 30)")
    span.add_argument("--since", metavar="DATE", help="every report day from DATE (YYYY-MM-DD)")
    build.add_argument("--lang", default="zh,en", help="languages, comma-separated (default zh,en)")
    build.add_argument("--no-search", action="store_true", help="skip the Pagefind search index")
    build.add_argument("--config", metavar="FILE", help="YAML configuration file")
    build.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    return parser


def _langs(text: str) -> tuple[Lang, ...]:
    """``zh,en`` as languages, each once, in order; a ``UsageError`` for anything else."""
    named = [Lang.parse(part.strip()) for part in text.split(",") if part.strip()]
    langs = tuple(dict.fromkeys(lang for lang in named if lang is not None))
    if not langs or None in named:
        raise UsageError(f"--lang takes zh, en or zh,en (not {text!r})")
    return langs


def archived_scopes(config: AppConfig) -> tuple[str, ...]:
    """The configured scopes the site builds: those that list their repositories. A scope of an
    owner's repositories (``owner/*``) is a different set on each day, so it has no archive."""
    return tuple(
        name
        for name, scope in config.scopes.items()
        if not any(is_owner_entry(repo) for repo in scope.repos)
    )


def site_options(args: argparse.Namespace, settings: Settings, config: AppConfig) -> SiteOptions:
    """The build's options from the command line, the settings and the configuration."""
    named = bool(args.repo or args.scope)
    repos = tuple(
        dict.fromkeys(args.repo or (() if named else (*config.repos, config.default_repo)))
    )
    try:
        scopes = tuple(
            dict.fromkeys(
                config.scope(n).name
                for n in ((args.scope or ()) if named else archived_scopes(config))
            )
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    for name in scopes:
        owners = [r for r in config.scope(name).repos if is_owner_entry(r)]
        if owners:
            raise UsageError(
                f"the site has no archive of scope {name!r}: it names an owner's repositories"
                f" ({', '.join(owners)}), a different set each day; list its repositories"
            )
    allow = allow_list(settings, config)
    for repo in (*repos, *(r for n in scopes for r in config.scope(n).repos)):
        if not valid_repo(repo):
            raise UsageError(f"{repo!r} is not a repository (use owner/name)")
        if not allow.allows(repo):
            raise RepoRefused(repo, "not_allowed", allowed=allow.shown())
    langs = _langs(args.lang)
    if not 1 <= args.days <= MAX_DAYS:
        raise UsageError(f"--days takes 1 to {MAX_DAYS}")
    since: date | None = None
    if args.since:
        try:
            since = date.fromisoformat(args.since)
        except ValueError:
            raise UsageError(f"--since takes a date like 2026-03-10 (not {args.since!r})") from None
    out = Path(args.out or settings.site_dir or "site").expanduser()
    return SiteOptions(
        out=out,
        repos=repos,
        scopes=scopes,
        days=args.days,
        since=since,
        langs=langs,
        site_url=settings.site_url,
        search=not args.no_search,
    )


def summary(report: SiteReport) -> str:
    """One line: what was written where."""
    search = "with search" if report.searchable else "without search"
    return (
        f"Wrote {report.pages} pages to {report.out} ({report.rendered} rendered, "
        f"{report.reused} unchanged, {report.pending} pending days, {search}) "
        f"in {report.seconds:.1f} s\n"
    )
