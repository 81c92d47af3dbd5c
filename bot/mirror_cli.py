"""``vllm-report mirror backfill``: reach the mirror back to a day, with progress on stderr."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import TextIO

from bot.commands.grammar import UsageError
from digest.github.client import GitHubClient
from digest.github.names import valid_repo
from digest.github.parse import parse_time
from digest.mirror.backfill import Backfill, BackfillResult, OnProgress, Progress

FIRST = "first"  # --since first: the repository's first day
_EVERY = 100  # requests between two progress lines when stderr is not a terminal


def mirror_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-report mirror", description="Fill the mirror ahead of the reports."
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="backfill")
    backfill = actions.add_parser(
        "backfill",
        help="mirror a repository from a day on (see vllm-report mirror backfill -h)",
        description=(
            "Mirror every issue, PR, comment and review comment updated since DATE, through "
            "GitHub's list streams (about one request per 100 rows), paced by the rate limit. "
            "A run the limit stops says when to run it again; the next run resumes where it "
            "stopped."
        ),
    )
    backfill.add_argument(
        "--since",
        required=True,
        metavar="DATE",
        help=f"YYYY-MM-DD (UTC), or `{FIRST}` for the repository's first day",
    )
    backfill.add_argument("--repo", metavar="OWNER/NAME", help="default: the default repository")
    backfill.add_argument(
        "--wait",
        action="store_true",
        help="when the rate limit runs low, wait for its reset and go on instead of stopping",
    )
    backfill.add_argument("--config", metavar="FILE", help="YAML configuration file")
    backfill.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    return parser


def since_of(text: str) -> date | None:
    """``--since``: a date, or ``None`` for the repository's first day; ``UsageError`` else."""
    if text.strip().lower() == FIRST:
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"--since takes a date like 2026-03-10 or `{FIRST}` (not {text!r})"
        ) from None


def repo_of(given: str | None, default: str) -> str:
    repo = given or default
    if not valid_repo(repo):
        raise UsageError(f"{repo!r} is not a repository (use owner/name)")
    return repo


async def first_day(client: GitHubClient, repo: str) -> datetime:
    """The moment ``repo`` was created, from GitHub."""
    created = parse_time(str((await client.repository(repo)).get("created_at") or ""))
    if created is None:
        raise UsageError(f"GitHub did not say when {repo} was created; pass --since DATE")
    return created


async def run_backfill(
    backfill: Backfill,
    client: GitHubClient,
    repo: str,
    since: date | None,
    *,
    wait: bool,
    err: TextIO,
) -> tuple[BackfillResult, datetime]:
    """Run the backfill with progress on ``err``; the result and the moment it reached for."""
    start = (
        await first_day(client, repo)
        if since is None
        else datetime(since.year, since.month, since.day, tzinfo=UTC)
    )
    err.write(f"Mirroring {repo} from {start:%Y-%m-%d %H:%M} UTC…\n")
    with _display(err) as show:
        result = await backfill.run(repo, start, wait=wait, on_progress=show)
    return result, start


def outcome(repo: str, start: datetime, result: BackfillResult) -> str:
    """The closing line: what the mirror now holds, or when to run again."""
    rows = (
        f"{result.items:,} issues and PRs, {result.comments:,} comments, "
        f"{result.review_comments:,} review comments in {result.requests:,} requests"
    )
    if result.complete:
        return f"Mirrored {repo} from {start:%Y-%m-%d %H:%M} UTC: {rows}\n"
    until = result.stopped_until
    when = f"{until:%Y-%m-%d %H:%M} UTC" if until else "the rate limit resets"
    return (
        f"Stopped by GitHub's rate limit after {rows}; run the same command again after "
        f"{when} to resume where it stopped (or pass --wait)\n"
    )


@contextmanager
def _display(err: TextIO) -> Iterator[OnProgress]:
    """A rich progress bar on a terminal, else a line every ``_EVERY`` requests."""
    if not err.isatty():
        yield _lines(err)
        return
    from rich.console import Console
    from rich.progress import BarColumn, TextColumn
    from rich.progress import Progress as Bar

    bar = Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} requests"),
        TextColumn("{task.fields[rows]}"),
        TextColumn("{task.fields[eta]}"),
        console=Console(file=err),
        transient=False,
    )
    task = bar.add_task("backfill", total=1, rows="", eta="")

    def show(p: Progress) -> None:
        bar.update(
            task,
            description=p.stream.replace("_", " "),
            completed=p.requests,
            total=max(p.estimated, 1),
            rows=_rows(p),
            eta=_eta(p),
        )

    with bar:
        yield show


def _lines(err: TextIO) -> Callable[[Progress], None]:
    last = [-_EVERY]

    def show(p: Progress) -> None:
        if p.waiting_until is None and p.stream != "done" and p.requests - last[0] < _EVERY:
            return
        last[0] = p.requests
        err.write(f"{p.requests:,}/{p.estimated:,} requests, {_rows(p)}, {_eta(p)}\n")

    return show


def _rows(p: Progress) -> str:
    return f"{p.items:,} items, {p.comments + p.review_comments:,} comments"


def _eta(p: Progress) -> str:
    if p.waiting_until is not None:
        return f"waiting for the rate limit until {p.waiting_until:%H:%M:%S} UTC"
    if p.stream == "done":
        return "done"
    return f"ETA {p.eta:%Y-%m-%d %H:%M} UTC" if p.eta else "ETA unknown"
