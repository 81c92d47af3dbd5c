"""`vllm-report mirror backfill` end to end: a real process against the fake GitHub."""

from __future__ import annotations

import asyncio
import os
import pty
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github import FakeGitHub
from tests.support.cli import Run, drain, run_cli
from tests.support.history import History, generate_history

REPO = "vllm-project/vllm"


async def _cli(*args: str, **kwargs: Any) -> Run:
    """The command line without a GitHub token of the environment."""
    return await run_cli(*args, unset=("GITHUB_TOKEN",), **kwargs)


def _history(items: int, comments: int, reviews: int) -> History:
    now = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    return generate_history(items=items, comments=comments, reviews=reviews, days=30, now=now)


@pytest.fixture
async def github() -> AsyncIterator[tuple[FakeGitHub, History]]:
    history = _history(300, 2_000, 500)
    async with FakeGitHub() as gh:
        gh.add_repo(REPO, history.issues, history.comments, history.review_comments)
        yield gh, history


async def test_backfill_from_the_first_day_mirrors_everything(
    github: tuple[FakeGitHub, History], tmp_path: Path
) -> None:
    """`--since first` asks GitHub when the repository began, mirrors every row from then in
    about a request per 100 rows, says so on stdout and shows progress on stderr."""
    fake, history = github
    env = {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": "t"}
    run = await _cli("mirror", "backfill", "--since", "first", env=env, tmp=tmp_path)
    assert run.code == 0, run.err
    first = min(r["created_at"] for r in history.issues)[:16].replace("T", " ")
    pages = 3 + 20 + 5
    assert re.fullmatch(
        rf"Mirrored {REPO} from {first} UTC: 300 issues and PRs, 2,000 comments, "
        r"500 review comments in (\d+) requests\n",
        run.out,
    ), run.out
    made = int(run.out.split(" in ")[1].split()[0])
    assert made == len(fake.requests) - 1 <= pages + 3  # the repository's first day: one more
    assert run.err.startswith(f"Mirroring {REPO} from {first} UTC…\n")
    assert run.err.rstrip().endswith("done")


async def test_a_backfill_the_limit_stops_says_when_to_run_it_again(tmp_path: Path) -> None:
    """Without a token the hour's 60 requests do not hold 90 pages: it stops where the share
    kept for commands begins, says when to run it again, and exits 4."""
    history = _history(1_000, 8_000, 0)
    async with FakeGitHub() as fake:
        fake.add_repo(REPO, history.issues, history.comments)
        since = history.start.date().isoformat()
        run = await _cli(
            "mirror", "backfill", "--since", since, env={"GITHUB_API_URL": fake.url}, tmp=tmp_path
        )
    assert run.code == 4, run.err
    assert run.out == ""
    last = run.err.strip().splitlines()[-1]
    assert re.fullmatch(
        r"vllm-report: Stopped by GitHub's rate limit after [\d,]+ issues and PRs, [\d,]+ "
        r"comments, 0 review comments in 48 requests; run the same command again after "
        r"\d{4}-\d\d-\d\d \d\d:\d\d UTC to resume where it stopped \(or pass --wait\)",
        last,
    ), last
    assert len(fake.requests) == 48


async def test_a_malformed_date_is_a_usage_error(tmp_path: Path) -> None:
    """A date GitHub cannot be asked about is refused before any request."""
    run = await _cli(
        "mirror",
        "backfill",
        "--since",
        "last year",
        env={"GITHUB_API_URL": "http://x"},
        tmp=tmp_path,
    )
    assert run.code == 2
    assert "--since takes a date like 2026-03-10 or `first`" in run.err


async def test_a_repository_off_the_allow_list_is_refused_before_any_request(
    tmp_path: Path,
) -> None:
    """With an allow-list, another repository exits 2 naming the list, asking GitHub nothing."""
    async with FakeGitHub() as fake:
        env = {"GITHUB_API_URL": fake.url, "VLLM_REPORT_ALLOWED_REPOS": "vllm-project/*"}
        args = ("mirror", "backfill", "--since", "first", "--repo", "other/repo")
        run = await _cli(*args, env=env, tmp=tmp_path)
        assert fake.requests == []
    assert run.code == 2, run.err
    assert "vllm-project/*" in run.err


async def test_on_a_terminal_a_progress_bar_shows_requests_rows_and_eta(
    github: tuple[FakeGitHub, History], tmp_path: Path
) -> None:
    """With stderr on a terminal, a progress bar shows the requests done of those estimated,
    the items and comments so far and the ETA; stdout keeps the plain closing line."""
    fake, _ = github
    master, slave = pty.openpty()
    try:
        drained = asyncio.get_running_loop().run_in_executor(None, drain, master)
        env = {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": "t", "COLUMNS": "160"}
        run = await _cli(
            "mirror", "backfill", "--since", "first", env=env, tmp=tmp_path, stderr=slave
        )
        os.close(slave)
        terminal = (await drained).decode(errors="replace")
    finally:
        os.close(master)
    assert run.code == 0
    assert re.search(r"\d+/\d+ requests", terminal), terminal
    assert "300 items, 2,500 comments" in terminal
    assert "ETA " in terminal or "done" in terminal
    assert run.out.startswith(f"Mirrored {REPO} from ") and "\x1b[" not in run.out
