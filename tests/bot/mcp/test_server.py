"""`vllm-report mcp` end to end: a real server process driven by the MCP SDK's own clients
(stdio and streamable HTTP) against the fake GitHub over HTTP."""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from mcp import ClientSession, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextResourceContents

from digest.mirror.profiles import FETCH_LIMIT
from tests.fakes.github import FakeGitHub, issue_row
from tests.support.paths import ROOT
from tests.support.redis_server import free_port
from tests.support.synthetic import Dataset, generate

REPO = "vllm-project/vllm"
OTHER = "someone/elsewhere"
TOKEN = "ghp_mcpsecret4242"
SECTIONS = ["summary", "topic:rocm", "hot", "trends", "key_changes", "activity", "watch"]
SECTIONS += ["appendix"]


def _cut_off(now: datetime) -> datetime:
    """The latest 03:21 UTC (11:21 in Shanghai, vLLM's daily cut-off) before ``now``."""
    moment = now.replace(hour=3, minute=21, second=0, microsecond=0)
    return moment if moment <= now else moment - timedelta(days=1)


@pytest.fixture(scope="module")
def data() -> Dataset:
    """Two report days of vLLM that ended before now."""
    return generate(days=2, now=_cut_off(datetime.now(UTC) - timedelta(minutes=2)), seed=5)


@pytest.fixture
def past_day(data: Dataset) -> str:
    """The first of the two days, as a date at vLLM's cut-off."""
    start, _ = data.day(1)
    return start.astimezone(ZoneInfo("Asia/Shanghai")).date().isoformat()


@pytest.fixture
async def github(data: Dataset) -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub() as gh:
        gh.add_repo(REPO, issues=data.issues, comments=data.comments)
        now = datetime.now(UTC)
        gh.add_repo(OTHER, issues=[issue_row(OTHER, 1, created=now - timedelta(hours=3))])
        yield gh


def _env(github: FakeGitHub, tmp: Path, **extra: str) -> dict[str, str]:
    return {
        "GITHUB_API_URL": github.url,
        "VLLM_REPORT_DB": str(tmp / "mirror.sqlite3"),
        "REDIS_URL": "",
        "PYTHONPATH": str(ROOT),
        **extra,
    }


@asynccontextmanager
async def _stdio(env: dict[str, str], errlog: Path, *options: str) -> AsyncIterator[ClientSession]:
    """A session with ``vllm-report mcp OPTIONS`` started by the SDK's stdio client."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "bot.cli", "mcp", *options], env=env, cwd=str(ROOT)
    )
    with errlog.open("w") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write, read_timeout_seconds=120) as session,
        ):
            await session.initialize()
            yield session


async def _cli(*args: str, env: dict[str, str]) -> str:
    """What ``vllm-report ARGS`` prints on stderr (its one-line error)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        *args,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return err.decode()


def _text(result: CallToolResult) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


def _window(result: dict[str, Any]) -> tuple[datetime, datetime]:
    window = result["window"]
    return (
        datetime.fromisoformat(window["start"].replace("Z", "+00:00")),
        datetime.fromisoformat(window["end"].replace("Z", "+00:00")),
    )


async def test_tools_digest_ask_items_and_a_day_over_stdio(
    github: FakeGitHub, data: Dataset, past_day: str, tmp_path: Path
) -> None:
    """Through the SDK's stdio client: four described tools with schemas; a past day's digest
    with exact counts and every section, within the design's request budget (progress while
    it is fetched); ROCm's answer linking
    exactly the window's ROCm items; the topic's items with their comment counts; the day as
    a resource, the same Markdown; and the token in no result and no log."""
    errlog = tmp_path / "stderr.txt"
    seen: list[str] = []
    async with _stdio(_env(github, tmp_path, GITHUB_TOKEN=TOKEN), errlog) as session:
        listed = (await session.list_tools()).tools
        assert sorted(t.name for t in listed) == ["ask", "digest", "item", "items"]
        for tool in listed:
            assert tool.description and tool.input_schema["type"] == "object"
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        progress: list[tuple[float, float | None, str | None]] = []

        async def heard(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        digest = await session.call_tool("digest", {"window": past_day}, progress_callback=heard)
        assert not digest.is_error, _text(digest)
        found = digest.structured_content
        assert found is not None
        assert _window(found) == data.day(1)
        expected = data.expected_counts(*data.day(1))
        assert found["counts"] == expected.as_dict()
        ids = [s["id"] for s in found["sections"]]
        assert [i for i in ids if i != "followups"] == SECTIONS
        assert {key: len(rows) for key, rows in found["lists"].items()} == expected.as_dict()
        markdown = _text(digest)
        assert markdown == found["markdown"]
        assert f"# vLLM Development Report - {past_day}" in markdown
        assert f"New issues {expected.new_issues} | Closed issues {expected.closed_issues}" in (
            markdown
        )
        issues, comments = data.rows_updated_since(data.day(1)[0] - timedelta(minutes=2))
        profiles = [r for r in github.requests if r.path.startswith("/users/")]
        assert len(github.data_requests) <= math.ceil(issues / 100) + math.ceil(comments / 100) + 3
        assert len(profiles) <= FETCH_LIMIT  # the people the report names, once each
        assert len({r.path for r in profiles}) == len(profiles)
        assert progress[0][2] is not None and f"Fetching {REPO} from GitHub" in progress[0][2]
        assert progress[-1][0] == progress[-1][1]  # done

        progress.clear()
        hot = await session.call_tool(
            "digest", {"window": past_day, "sections": ["hot"]}, progress_callback=heard
        )
        assert hot.structured_content is not None
        assert [s["id"] for s in hot.structured_content["sections"]] == ["hot"]
        assert hot.structured_content["lists"] is None
        assert progress == []  # from the cache: nothing to fetch

        answer = await session.call_tool("ask", {"question": "what's new in ROCm?"})
        assert not answer.is_error, _text(answer)
        said = answer.structured_content
        assert said is not None and said["topic"] == "rocm"
        cited = {item["number"] for item in said["items"]}
        assert cited == data.rocm_numbers and not cited & data.trap_numbers
        for item in said["items"]:
            assert item["url"].endswith(f"/{item['number']}") and item["title"]
            assert f"]({item['url']})" in _text(answer)

        listing = await session.call_tool("items", {"window": "week", "topic": "rocm"})
        assert not listing.is_error, _text(listing)
        rows = listing.structured_content
        assert rows is not None
        assert {row["number"] for row in rows["items"]} == data.rocm_numbers
        assert rows["total"] == len(data.rocm_numbers)
        talk = data.human_comment_counts(*_window(rows))
        assert {row["number"]: row["comments"] for row in rows["items"]} == {
            n: talk.get(n, 0) for n in data.rocm_numbers
        }
        assert json.loads(_text(listing)) == rows

        day = await session.read_resource(f"vllm-report://{REPO}/{past_day}/en")
        (contents,) = day.contents
        assert isinstance(contents, TextResourceContents)
        assert contents.mime_type == "text/markdown" and contents.text == markdown
        config = await session.read_resource("vllm-report://repositories")
        (listed_config,) = config.contents
        assert isinstance(listed_config, TextResourceContents)
        configured = json.loads(listed_config.text)
        assert configured["repositories"][0]["repo"] == REPO
        assert [t["name"] for t in configured["topics"]] == ["rocm"]
        seen += [_text(r) for r in (digest, hot, answer, listing)]
        seen += [contents.text, listed_config.text]
    assert all(TOKEN not in text for text in seen)
    assert TOKEN not in errlog.read_text()


async def test_errors_have_the_command_line_words_and_the_server_keeps_serving(
    github: FakeGitHub, past_day: str, tmp_path: Path
) -> None:
    """A bad window, an unknown repository and GitHub's exhausted rate limit each come back
    as a tool error worded as the command line words them (a day's resource as a protocol
    error); later calls still answer."""
    env = _env(github, tmp_path)
    cli_env = {**env, "VLLM_REPORT_DB": str(tmp_path / "cli.sqlite3")}
    async with _stdio(env, tmp_path / "stderr.txt") as session:
        first = await session.call_tool("digest", {"window": past_day})
        assert not first.is_error, _text(first)
        for window, repo in (("2099-01-01", REPO), ("40d", REPO), ("today", "nobody/nothing")):
            result = await session.call_tool("digest", {"window": window, "repo": repo})
            line = await _cli(window, "--repo", repo, env=cli_env)
            assert result.is_error and line == f"vllm-report: {_text(result)}\n"
        result = await session.call_tool("items", {"window": "tomorrow"})
        assert result.is_error and "That window doesn't work" in _text(result)
        result = await session.call_tool("ask", {"question": "what's new?", "repo": "nobody/x"})
        line = await _cli("ask", "what's new?", "--repo", "nobody/x", env=cli_env)
        assert result.is_error and line == f"vllm-report: {_text(result)}\n"
        with pytest.raises(MCPError, match="That window doesn't work: "):
            await session.read_resource(f"vllm-report://{REPO}/2099-01-01/en")

        github.exhaust()
        limited = await session.call_tool("digest", {"repo": OTHER})
        assert limited.is_error
        line = await _cli("today", "--repo", OTHER, env=cli_env)
        words = _text(limited)
        assert words.startswith("GitHub's rate limit is used up. It resets at ")
        assert words.split(" (in about")[0] == line.removeprefix("vllm-report: ").split(" (in")[0]
        assert words.endswith(
            "Setting GITHUB_TOKEN raises the limit from 60 to 5,000 requests an hour."
        )

        again = await session.call_tool("digest", {"window": past_day})
        assert not again.is_error and again.structured_content == first.structured_content
        assert len((await session.list_tools()).tools) == 4


async def test_verbose_logs_go_to_stderr_and_never_into_the_protocol(
    github: FakeGitHub, past_day: str, tmp_path: Path
) -> None:
    """With `-v` every log line goes to stderr: stdout carries the protocol alone, so calls
    still answer, and the token is in no log line."""
    errlog = tmp_path / "stderr.txt"
    env = _env(github, tmp_path, GITHUB_TOKEN=TOKEN)
    async with _stdio(env, errlog, "-v") as session:
        result = await session.call_tool("digest", {"window": past_day, "sections": ["summary"]})
        assert not result.is_error, _text(result)
    logged = errlog.read_text()
    assert "runtime.ready" in logged and "digest" in logged
    assert TOKEN not in logged


async def test_streamable_http_answers_the_same_digest(
    github: FakeGitHub, data: Dataset, past_day: str, tmp_path: Path
) -> None:
    """`vllm-report mcp --http PORT` serves the streamable HTTP transport on 127.0.0.1, the
    SDK's client gets the same digest from it, a foreign Host is refused, and SIGTERM stops it
    cleanly."""
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "mcp",
        "--http",
        str(port),
        env={**os.environ, **_env(github, tmp_path)},
        cwd=str(ROOT),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        await _listening(port, proc)
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write, read_timeout_seconds=120) as session,
        ):
            await session.initialize()
            result = await session.call_tool("digest", {"window": past_day})
        assert not result.is_error, _text(result)
        assert result.structured_content is not None
        counts = data.expected_counts(*data.day(1)).as_dict()
        assert result.structured_content["counts"] == counts
        assert [s["id"] for s in result.structured_content["sections"]][-1] == "appendix"
        async with httpx.AsyncClient() as client:
            foreign = await client.post(
                url,
                headers={"Host": "evil.example", "Content-Type": "application/json"},
                content=b"{}",
            )
        assert foreign.status_code == 421  # DNS rebinding: the SDK wants a local Host
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), timeout=30)
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()


async def _listening(port: int, proc: asyncio.subprocess.Process) -> None:
    """Until something answers on ``port`` (the server process must not have exited)."""
    async with httpx.AsyncClient() as client:
        for _ in range(300):
            assert proc.returncode is None, "the server exited"
            try:
                await client.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                return
            except httpx.TransportError:
                await asyncio.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


async def test_a_client_has_chats_limits_and_leaves_the_github_reserve(
    github: FakeGitHub, past_day: str, tmp_path: Path
) -> None:
    """An MCP client's digests come from its own bucket (chat's per-member rate): one too many
    is a tool error saying the limit and when to try again, while its questions still answer;
    below GitHub's reserve for the daily posts its work is refused with the reserve's words and
    sends nothing more to GitHub; the server keeps serving."""
    env = _env(github, tmp_path, VLLM_REPORT_LIMIT_DIGESTS_PER_USER="2/h")
    async with _stdio(env, tmp_path / "stderr.txt") as session:
        for sections in (None, ["hot"]):
            args = {"window": past_day, **({"sections": sections} if sections else {})}
            assert not (await session.call_tool("digest", args)).is_error
        third = await session.call_tool("digest", {"window": past_day})
        assert third.is_error
        assert _text(third).startswith("You have reached your limit of digests (2 per hour)")
        assert "try again after " in _text(third)
        answer = await session.call_tool("ask", {"question": "what's new in ROCm?"})
        assert not answer.is_error, _text(answer)

        github.leave(3)
        made = len(github.requests)
        saved = await session.call_tool("ask", {"question": "what's new?", "repo": OTHER})
        assert saved.is_error
        assert _text(saved).startswith("The bot is saving its GitHub budget for the daily posts")
        assert len(github.requests) - made <= 1  # the one that told it how little is left
        again = await session.call_tool("ask", {"question": "what's new in ROCm?"})
        assert not again.is_error  # the mirror is fresh: no request needed
