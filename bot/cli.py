"""The ``vllm-report`` command line: digests to stdout, one-line errors, distinct exit codes."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import AsyncIterator, Coroutine, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from bot.process.logs import configure
from digest.errors import (
    BadWindow,
    ConfigError,
    DigestError,
    NotFound,
    RateLimited,
    RepoRefused,
    SearchRefused,
    SourceUnavailable,
)
from digest.models import Lang

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_RATE_LIMITED = 4
EXIT_UNAVAILABLE = 5
EXIT_CONFIG = 6

if TYPE_CHECKING:  # the rest is imported by the commands that need it: --help stays fast
    import httpx

    from bot.compose import Runtime
    from config.settings import AppConfig, Settings

log = logging.getLogger("vllm_report")

_EPILOG = """\
windows: today (default), yesterday, week, Nd (e.g. 3d), YYYY-MM-DD, YYYY-MM-DD..YYYY-MM-DD
the chat grammar works here too: vllm-report help, vllm-report topic rocm week,
  vllm-report week lang:zh repo:owner/name
other commands:
  vllm-report ask "what's new in ROCm?"   a short linked answer
  vllm-report serve                       run the Slack/Discord bot and the daily posts
  vllm-report mcp [--http PORT]           the tools for coding agents (Model Context Protocol)
  vllm-report site build --days 30        the static report website (see site build -h)
  vllm-report mirror backfill --since first   mirror a repository's whole history ahead
  vllm-report subscriptions export        the stored subscriptions, as the YAML file's entries
  vllm-report subscriptions import FILE   store a YAML file's subscriptions (a backup)
exit codes: 0 ok, 1 internal error, 2 bad command or window, 3 repository not found
  (or not searchable), 4 GitHub rate limit exhausted, 5 GitHub unreachable, 6 bad configuration
"""


def _version() -> str:
    """The installed distribution's version."""
    from importlib import metadata

    try:
        return metadata.version("vllm-report")
    except metadata.PackageNotFoundError:  # running from a checkout that is not installed
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: looks the version up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        sys.stdout.write(f"vllm-report {_version()}\n")
        parser.exit()


def _digest_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-report",
        description="A digest of a GitHub repository's activity over a time window.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "words",
        nargs="*",
        metavar="COMMAND",
        help="the chat grammar: a window (default: today), `topic NAME [WINDOW]`, `help`",
    )
    parser.add_argument("--version", action=_VersionAction)
    _common(parser, several=True)
    parser.add_argument("--format", choices=("md", "json"), default="md", help="output format")
    parser.add_argument(
        "--compact",
        action="store_true",
        help="with --format json: each item once, referred to by number elsewhere",
    )
    parser.add_argument(
        "--topic",
        action="append",
        metavar="NAME",
        help="focus topic (repeatable; default: the repository's topics)",
    )
    parser.add_argument(
        "--tz", metavar="ZONE", help="IANA timezone of the window, e.g. Asia/Shanghai"
    )
    parser.add_argument("--day-start", metavar="HH:MM", help="daily cut-off, e.g. 11:21")
    parser.add_argument(
        "--writer",
        choices=("template", "llm"),
        help="who writes the sections (default: llm when an endpoint is configured)",
    )
    return parser


class _LangAction(argparse.Action):
    """Keeps ``--lang`` as a :class:`Lang` (argparse has refused anything but its choices)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, Lang(str(values)))


class _OneRepoAction(argparse.Action):
    """Refuses a second ``--repo`` where one repository is meant (a question): the last one
    silently winning would answer something other than what was asked."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        earlier = getattr(namespace, self.dest, None)
        if earlier is not None and earlier != values:
            parser.error(f"a question covers one repository: --repo {earlier} and --repo {values}")
        setattr(namespace, self.dest, values)


def _common(parser: argparse.ArgumentParser, *, several: bool = False) -> None:
    """The options every command takes; with ``several``, ``--repo`` is repeatable (one
    report over them all) and ``--scope`` names a configured scope."""
    if several:
        parser.add_argument(
            "--repo",
            metavar="OWNER/NAME",
            action="append",
            dest="repos",
            help="repository (repeatable: one report over them all; default from the config)",
        )
        parser.add_argument(
            "--scope", metavar="NAME", help="a scope of the configuration (its `scopes`)"
        )
    else:
        parser.add_argument(
            "--repo",
            metavar="OWNER/NAME",
            action=_OneRepoAction,
            help="repository (default from the config)",
        )
    parser.add_argument(
        "--lang",
        choices=[lang.value for lang in Lang],
        action=_LangAction,
        help="language of the report (default: en)",
    )
    parser.add_argument("--config", metavar="FILE", help="YAML configuration file")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")


def _ask_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vllm-report ask", description="Answer a question.")
    parser.add_argument("question", nargs="+", help='the question, e.g. "what\'s new in ROCm?"')
    _common(parser)
    parser.add_argument("--format", choices=("md", "json"), default="md")
    return parser


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-report serve", description="Run the chat bots and the daily posts."
    )
    parser.add_argument("--config", metavar="FILE", help="YAML configuration file")
    parser.add_argument("-v", "--verbose", action="store_true")
    return parser


def _mcp_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-report mcp",
        description="Serve the digest, questions and items as Model Context Protocol tools: "
        "over stdin/stdout (for an MCP client that starts it), or with --http over the "
        "streamable HTTP transport on 127.0.0.1.",
    )
    parser.add_argument(
        "--http",
        metavar="PORT",
        type=int,
        help="serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio",
    )
    parser.add_argument("--config", metavar="FILE", help="YAML configuration file")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    return parser


def _subscriptions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-report subscriptions",
        description="Back up and restore the subscriptions made in chat (Redis or SQLite).",
    )
    actions = parser.add_subparsers(dest="action", required=True)
    export = actions.add_parser("export", help="write every stored subscription as YAML")
    export.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    restore = actions.add_parser("import", help="store the subscriptions of a YAML file")
    restore.add_argument("file", metavar="FILE", help="a file `export` wrote, or any config")
    for sub in (export, restore):
        sub.add_argument("--config", metavar="FILE", help="YAML configuration file")
        sub.add_argument("-v", "--verbose", action="store_true")
    return parser


def _read_entries(path: str) -> list[Any]:
    """The ``subscriptions`` of the YAML file ``path``, checked as the configuration's are."""
    import yaml
    from pydantic import ValidationError

    from config.settings import SubscriptionConfig

    try:
        raw = yaml.safe_load(Path(path).read_text("utf-8")) or {}
        entries = raw.get("subscriptions") or [] if isinstance(raw, dict) else None
        if not isinstance(entries, list):
            raise ConfigError(f"{path} has no `subscriptions:` list")
        return [SubscriptionConfig.model_validate(entry) for entry in entries]
    except OSError as exc:
        raise ConfigError(f"cannot read {path} ({exc.strerror or exc})") from exc
    except (yaml.YAMLError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"{path} is not a subscriptions file: {first}") from exc


async def _run_subscriptions(
    args: argparse.Namespace, settings: Settings, config: AppConfig, out: TextIO, err: TextIO
) -> None:
    import asyncio

    import yaml

    from bot.commands.subscriptions import export_entries, import_entries

    entries = _read_entries(args.file) if args.action == "import" else []
    async with _runtime(settings, config) as runtime:
        store = runtime.subscriptions
        if args.action == "export":
            text = yaml.safe_dump(
                {"subscriptions": await export_entries(store)},
                sort_keys=False,
                allow_unicode=True,
            )
            if args.out:
                await asyncio.to_thread(Path(args.out).write_text, text, "utf-8")
            else:
                out.write(text)
            return
        stored, skipped = await import_entries(store, entries, config, runtime.clock)
    for line in skipped:
        err.write(f"vllm-report: skipped {line}\n")
    out.write(f"subscriptions: {stored} stored, {len(skipped)} skipped\n")


def exit_code(error: BaseException) -> int:
    """The exit code of an error; each kind of failure has its own."""
    from bot.commands.grammar import UsageError

    if isinstance(error, UsageError | BadWindow):
        return EXIT_USAGE
    if isinstance(error, RepoRefused):  # missing on GitHub, or off the allow-list / private
        return EXIT_NOT_FOUND if error.reason == "missing" else EXIT_USAGE
    if isinstance(error, NotFound | SearchRefused):  # GitHub's search would not look into it
        return EXIT_NOT_FOUND
    if isinstance(error, RateLimited):
        return EXIT_RATE_LIMITED
    if isinstance(error, SourceUnavailable):
        return EXIT_UNAVAILABLE
    if isinstance(error, ConfigError):
        return EXIT_CONFIG
    return EXIT_INTERNAL


def _settings(args: argparse.Namespace, err: TextIO) -> tuple[Settings, AppConfig]:
    """Settings and configuration; with ``VLLM_REPORT_LOG_JSON`` the logs turn to JSON lines."""
    from bot.compose import load_settings

    settings, config = load_settings(args.config)
    if settings.log_json:
        _logging(args.verbose, err, json_lines=True)
    return settings, config


@asynccontextmanager
async def _runtime(settings: Settings, config: AppConfig) -> AsyncIterator[Runtime]:
    """The runtime, its SQLite files opened up front: one that cannot be is a config error."""
    import sqlite3

    from bot.compose import build_runtime

    async with build_runtime(settings, config, transport=_transport()) as runtime:
        if settings.redis.url is None:
            try:
                await runtime.store.get_sync_state(config.default_repo)
                await runtime.state.get("vllm-report:cli")
            except (OSError, sqlite3.Error) as exc:
                reason = getattr(exc, "strerror", None) or str(exc)
                raise ConfigError(
                    f"cannot open the local mirror {settings.db} ({reason}); "
                    "point VLLM_REPORT_DB at a writable file"
                ) from exc
        yield runtime


def _transport() -> httpx.AsyncBaseTransport | None:
    """httpx's default transport, made on the first request, so that a digest answered from
    the cache loads no connection pool and reads no CA bundle; ``None`` (httpx's own) when
    the environment names a proxy, which only httpx's own transport setup honours."""
    from urllib.request import getproxies

    import httpx

    if any(getproxies().get(scheme) for scheme in ("http", "https", "all")):
        return None

    class OnFirstRequest(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self._inner: httpx.AsyncHTTPTransport | None = None

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if self._inner is None:
                self._inner = httpx.AsyncHTTPTransport()
            return await self._inner.handle_async_request(request)

        async def aclose(self) -> None:
            if self._inner is not None:
                await self._inner.aclose()

    return OnFirstRequest()


def _progress(stream: TextIO, text: str) -> AbstractContextManager[object]:
    if not stream.isatty():
        return nullcontext()
    from rich.console import Console

    return Console(file=stream).status(text)


async def _run_digest(
    args: argparse.Namespace, settings: Settings, config: AppConfig, out: TextIO, err: TextIO
) -> None:
    if args.compact and args.format != "json":
        from bot.commands.grammar import UsageError

        raise UsageError("--compact goes with --format json")
    async with _runtime(settings, config) as runtime:
        request = runtime.core.request(
            args.window,
            repos=tuple(args.repos or ()),
            scope=args.scope,
            lang=args.lang,
            topics=tuple(args.topic) if args.topic else args.topics,
            writer=args.writer,
            timezone=args.tz,
            day_start=args.day_start,
        )
        with _progress(err, f"Building the {', '.join(request.repos)} digest…"):
            digest = await runtime.core.build(request)
    if args.format == "json":  # written as it is made: a 30-day digest is megabytes
        from digest.render.json import write_json

        write_json(digest, out, compact=args.compact)
        out.write("\n")
    else:
        from digest.render.markdown import render_markdown

        out.write(render_markdown(digest))


async def _run_ask(
    args: argparse.Namespace, settings: Settings, config: AppConfig, out: TextIO, err: TextIO
) -> None:
    from bot.ask_cli import run_ask

    async with _runtime(settings, config) as runtime:
        with _progress(err, "Looking it up…"):
            text = await run_ask(
                runtime.core,
                " ".join(args.question),
                repo=args.repo,
                lang=args.lang,
                fmt=args.format,
            )
    out.write(text if text.endswith("\n") else text + "\n")


async def _run_mcp(
    args: argparse.Namespace, settings: Settings, config: AppConfig, out: TextIO, err: TextIO
) -> None:
    from bot.compose.mcp import mcp_server

    if args.http is not None and not 0 < args.http < 65536:
        from bot.commands.grammar import UsageError

        raise UsageError(f"--http takes a port from 1 to 65535, not {args.http}")
    async with _runtime(settings, config) as runtime:
        from bot.mcp.server import serve

        await serve(
            mcp_server(runtime, version=_version(), verbose=args.verbose), http_port=args.http
        )


async def _run_mirror(
    args: argparse.Namespace, settings: Settings, config: AppConfig, out: TextIO, err: TextIO
) -> int:
    import asyncio

    from bot.commands.following import allow_list
    from bot.mirror_cli import outcome, repo_of, run_backfill, since_of
    from digest.mirror.backfill import Backfill

    repo = repo_of(args.repo, config.default_repo)
    since = since_of(args.since)
    allow = allow_list(settings, config)
    if not allow.allows(repo):
        raise RepoRefused(repo, "not_allowed", allowed=allow.shown())
    async with _runtime(settings, config) as runtime:
        backfill = Backfill(
            runtime.github,
            runtime.store,
            clock=runtime.clock,
            sleep=asyncio.sleep,
            web_url=settings.github.web_url,
        )
        result, start = await run_backfill(
            backfill, runtime.github, repo, since, wait=args.wait, err=err
        )
    if result.complete:
        out.write(outcome(repo, start, result))
        return EXIT_OK
    err.write(f"vllm-report: {outcome(repo, start, result)}")
    return EXIT_RATE_LIMITED


async def _run_site(
    args: argparse.Namespace, settings: Settings, config: AppConfig, out: TextIO, err: TextIO
) -> None:
    from bot.compose.site import site_builder
    from bot.site.command import site_options, summary

    options = site_options(args, settings, config)
    async with _runtime(settings, config) as runtime:
        with _progress(err, f"Building the site in {options.out}…"):
            try:
                report = await site_builder(runtime).build(options)
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise ConfigError(f"cannot write the site to {options.out} ({reason})") from exc
    out.write(summary(report))


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run the command line; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = args_list[0] if args_list else ""
    try:
        if command == "serve":
            from bot.compose.services import serve_main

            sargs = _serve_parser().parse_args(args_list[1:])
            _logging(sargs.verbose, err)
            return serve_main(sargs.config, verbose=sargs.verbose, err=err)
        if command == "site":
            from bot.site.command import site_parser

            site_args = site_parser().parse_args(args_list[1:])
            _logging(site_args.verbose, err)
            _run(_run_site(site_args, *_settings(site_args, err), out, err))
            return EXIT_OK
        if command == "mirror":
            from bot.mirror_cli import mirror_parser

            margs = mirror_parser().parse_args(args_list[1:])
            _logging(margs.verbose, err)
            return _run_code(_run_mirror(margs, *_settings(margs, err), out, err))
        if command == "subscriptions" and args_list[1:2] in (["export"], ["import"], ["-h"]):
            bargs = _subscriptions_parser().parse_args(args_list[1:])
            _logging(bargs.verbose, err)
            _run(_run_subscriptions(bargs, *_settings(bargs, err), out, err))
            return EXIT_OK
        if command == "mcp":
            margs = _mcp_parser().parse_args(args_list[1:])
            _logging(margs.verbose, err)
            _run(_run_mcp(margs, *_settings(margs, err), out, err))
            return EXIT_OK
        if command == "ask":
            aargs = _ask_parser().parse_args(args_list[1:])
            _logging(aargs.verbose, err)
            _run(_run_ask(aargs, *_settings(aargs, err), out, err))
            return EXIT_OK
        parser = _digest_parser()
        dargs = parser.parse_args(args_list)
        if [w.lower() for w in dargs.words] in (["help"], ["-h"]):
            out.write(parser.format_help())
            return EXIT_OK
        _logging(dargs.verbose, err)
        if _chat_words(dargs):  # a question in the chat grammar, as `ask` would take it
            dargs.question = dargs.words
            dargs.repo = _one_repo(parser, dargs)
            _run(_run_ask(dargs, *_settings(dargs, err), out, err))
            return EXIT_OK
        _run(_run_digest(dargs, *_settings(dargs, err), out, err))
        return EXIT_OK
    except SystemExit as exc:  # argparse: --help or a usage error
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenPipeError:  # the reader went away, e.g. `vllm-report today | head -1`
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        err.write("vllm-report: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - one line each; _failed logs the unexpected
        return _failed(exc, err)


def _chat_words(args: argparse.Namespace) -> bool:
    """Read the positional words with the chat grammar into ``args`` (window, topics, repo and
    lang options); true when they ask a question. Chat-only commands are refused clearly."""
    from bot.commands.grammar import AskCommand, DigestCommand, UsageError, parse

    command = parse(" ".join(args.words))
    if isinstance(command, AskCommand):
        return True
    if not isinstance(command, DigestCommand):
        word = args.words[0].lower()
        raise UsageError(f"`{word}` works in Slack and Discord, where it changes a channel")
    args.window, args.topics = command.window, command.topics
    if not args.repos and command.options.repo:
        args.repos = [command.options.repo]
    args.lang = args.lang or command.options.lang
    args.writer = args.writer or command.writer
    return False


def _one_repo(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """The one repository a question names; several, or a scope, are a usage error."""
    repos = args.repos or []
    if len(repos) > 1 or args.scope:
        parser.error("a question covers one repository: give one --repo and no --scope")
    return repos[0] if repos else None


def _failed(exc: Exception, err: TextIO) -> int:
    """One line on ``err`` for a failure, and its exit code."""
    from bot.commands import messages
    from bot.commands.grammar import UsageError

    if not isinstance(exc, UsageError | DigestError):
        log.debug("cli.failed", exc_info=True)
    err.write(f"vllm-report: {messages.command_line_error(exc)}\n")
    return exit_code(exc)


def _run(work: Coroutine[Any, Any, None]) -> None:
    import asyncio

    asyncio.run(work)


def _run_code(work: Coroutine[Any, Any, int]) -> int:
    import asyncio

    return asyncio.run(work)


def _logging(verbose: bool, err: TextIO, *, json_lines: bool = False) -> None:
    configure(json_lines=json_lines, level=logging.DEBUG if verbose else logging.ERROR, stream=err)
    # a mistyped setting is worth a line even when only errors are shown
    logging.getLogger("config.settings").setLevel(logging.WARNING)


def run() -> int:
    """The ``vllm-report`` program: :func:`main` in a process paced for large digests."""
    from bot.process.collector import pace_collector

    pace_collector()
    return main()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(run())
