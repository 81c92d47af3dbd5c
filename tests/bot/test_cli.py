"""The command line end to end: a real process against the fake GitHub over HTTP."""

from __future__ import annotations

import asyncio
import json
import math
import os
import pty
import re
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fakes.github import FakeGitHub, issue_row, refused_url
from tests.support.cli import drain, run_cli
from tests.support.redis_server import RedisServer, find_binary
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate

REPO = "vllm-project/vllm"


@pytest.fixture
def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def day(now: datetime) -> Dataset:
    return generate(days=1, now=now, seed=3)


@pytest.fixture
async def github(day: Dataset) -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub() as gh:
        gh.add_repo(REPO, issues=day.issues, comments=day.comments)
        yield gh


async def test_today_as_json_has_exact_counts_within_the_request_budget(
    github: FakeGitHub, day: Dataset, tmp_path: Path
) -> None:
    """`vllm-report today --format json` counts exactly and stays within the request budget."""
    run = await run_cli(
        "today", "--format", "json", env={"GITHUB_API_URL": github.url}, tmp=tmp_path
    )
    assert run.code == 0, run.err
    digest = json.loads(run.out)
    start = datetime.fromisoformat(digest["window"]["start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(digest["window"]["end"].replace("Z", "+00:00"))
    assert end - start == timedelta(days=1)
    expected = day.expected_counts(start, end)
    assert digest["counts"] == expected.as_dict()
    assert run.err == ""  # no progress display when stderr is not a terminal
    issues, comments = day.rows_updated_since(start - timedelta(minutes=2))
    budget = math.ceil(issues / 100) + math.ceil(comments / 100) + 3
    assert len(github.data_requests) <= budget
    assert [s["id"] for s in digest["sections"]] == [
        "summary",
        "topic:rocm",
        "hot",
        "trends",
        "key_changes",
        "activity",
        "watch",
        "appendix",
    ]


async def test_reference_window_in_chinese(tmp_path: Path) -> None:
    """The reference day prints its exact window and the zh headings."""
    data = generate(days=1, now=DEFAULT_NOW, seed=1)
    async with FakeGitHub() as gh:
        gh.add_repo(REPO, issues=data.issues, comments=data.comments)
        run = await run_cli(
            "2026-03-10",
            "--tz",
            "Asia/Shanghai",
            "--day-start",
            "11:21",
            "--lang",
            "zh",
            "-v",
            env={"GITHUB_API_URL": gh.url},
            tmp=tmp_path,
        )
    assert run.code == 0, run.err
    assert "2026-03-10 11:21 (UTC+8) ~ 2026-03-11 11:21 (UTC+8)" in run.out
    assert "# vLLM 开发动态报告 - 2026-03-10" in run.out
    counts = data.expected_counts(*data.day(0))
    assert (
        f"新 Issue {counts.new_issues} | 关闭 Issue {counts.closed_issues} | "
        f"新 PR {counts.new_prs} | 合并 PR {counts.merged_prs} | "
        f"关闭未合并 PR {counts.closed_unmerged_prs}"
    ) in run.out
    for heading in (
        "📊 每日开发状态摘要",
        "🎯 AMD/ROCm 生态相关动态",
        "💬 高热度讨论分析",
        "🔥 热门话题与趋势分析",
        "🛠️ 重点技术变更",
        "📈 开发活跃度观察",
        "💡 值得关注的问题",
        "📋 附录：详细数据列表",
    ):
        assert heading in run.out


async def test_unknown_repository_exit_code(github: FakeGitHub, tmp_path: Path) -> None:
    """A repository GitHub does not know exits 3 with one clear line."""
    run = await run_cli(
        "today", "--repo", "nobody/nothing", env={"GITHUB_API_URL": github.url}, tmp=tmp_path
    )
    assert run.code == 3
    assert "couldn't find nobody/nothing" in run.err
    assert run.err.count("\n") == 1 and "Traceback" not in run.err


async def test_a_repository_off_the_allow_list_exits_2_without_a_request(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """With `VLLM_REPORT_ALLOWED_REPOS`, a digest or question of another repository exits 2
    with one line naming the list; GitHub is never asked; the default repository still works."""
    env = {"GITHUB_API_URL": github.url, "VLLM_REPORT_ALLOWED_REPOS": "vllm-project/*"}
    for args in (("today", "--repo", "other/repo"), ("ask", "what's new?", "--repo", "other/repo")):
        run = await run_cli(*args, env=env, tmp=tmp_path)
        assert run.code == 2, run.err
        assert "other/repo is not on this bot's list of allowed repositories" in run.err
        assert run.err.count("\n") == 1 and "Traceback" not in run.err
    assert github.requests == []
    assert (await run_cli("today", env=env, tmp=tmp_path)).code == 0


async def test_rate_limit_exit_code_says_when_it_resets(github: FakeGitHub, tmp_path: Path) -> None:
    """An exhausted rate limit exits 4, names the reset time and suggests a token."""
    github.exhaust()
    run = await run_cli("today", env={"GITHUB_API_URL": github.url}, tmp=tmp_path)
    assert run.code == 4
    assert "rate limit" in run.err and "resets at" in run.err and "GITHUB_TOKEN" in run.err
    assert "Traceback" not in run.err


async def test_no_network_exit_code(tmp_path: Path) -> None:
    """GitHub unreachable exits 5 with one line."""
    run = await run_cli(
        "today", env={"GITHUB_API_URL": refused_url(), "GITHUB_MAX_RETRIES": "0"}, tmp=tmp_path
    )
    assert run.code == 5
    assert "can't be reached" in run.err and "Traceback" not in run.err


@pytest.mark.parametrize("window", ["tomorrow", "2099-01-01", "40d", "2026-02-30"])
async def test_bad_window_exit_code(window: str, tmp_path: Path) -> None:
    """A malformed or future window exits 2 before any request is made."""
    run = await run_cli(window, env={"GITHUB_API_URL": refused_url()}, tmp=tmp_path)
    assert run.code == 2
    assert "window" in run.err.lower() or "date" in run.err.lower()


@pytest.mark.parametrize("command", [(), ("ask", "what's new?")])
async def test_an_unknown_language_exit_code(command: tuple[str, ...], tmp_path: Path) -> None:
    """`--lang fr` exits 2 naming the languages there are, before any request is made."""
    run = await run_cli(
        *command, "--lang", "fr", env={"GITHUB_API_URL": refused_url()}, tmp=tmp_path
    )
    assert run.code == 2
    assert "invalid choice: 'fr' (choose from 'zh', 'en')" in run.err


@pytest.mark.parametrize("log_json", [False, True])
async def test_token_never_reaches_output(
    github: FakeGitHub, tmp_path: Path, log_json: bool
) -> None:
    """A GITHUB_TOKEN is sent to GitHub but never printed, even with -v, in plain or JSON logs
    (which carry each event's fields)."""
    env = {"GITHUB_API_URL": github.url, "GITHUB_TOKEN": "ghp_topsecret123"}
    if log_json:
        env["VLLM_REPORT_LOG_JSON"] = "true"
    run = await run_cli("today", "-v", env=env, tmp=tmp_path)
    assert run.code == 0, run.err
    assert "ghp_topsecret123" not in run.out + run.err
    if log_json:
        logged = [json.loads(line) for line in run.err.splitlines()]
        (synced,) = [entry for entry in logged if entry["event"] == "sync.done"]
        assert synced["repo"] == REPO and synced["requests"] == len(github.data_requests)
    else:
        assert re.search(rf"INFO digest.mirror.sync: sync.done repo={REPO} requests=\d+", run.err)
    assert github.requests and all(r.authenticated for r in github.requests)
    assert all("authorization" not in r.headers for r in github.requests)


async def test_second_run_reuses_the_mirror(github: FakeGitHub, tmp_path: Path) -> None:
    """The same command right after makes at most 2 requests (a fresh sync is reused)."""
    env = {"GITHUB_API_URL": github.url}
    first = await run_cli("today", "--format", "json", env=env, tmp=tmp_path)
    made = len(github.requests)
    second = await run_cli("today", "--format", "json", env=env, tmp=tmp_path)
    assert first.code == second.code == 0
    assert len(github.requests) - made <= 2
    assert json.loads(first.out)["counts"] == json.loads(second.out)["counts"]


async def test_llm_endpoint_is_used_when_configured(
    github: FakeGitHub, day: Dataset, tmp_path: Path
) -> None:
    """With LLM_BASE_URL and LLM_MODEL set, `today` is model-written, counts from the data."""
    from tests.fakes.openai_server import FakeOpenAI

    async with FakeOpenAI() as model:
        env = {
            "GITHUB_API_URL": github.url,
            "LLM_BASE_URL": model.base_url,
            "LLM_MODEL": "qwen3-8b",
            "LLM_API_KEY": "sk-test-secret",
        }
        run = await run_cli("today", "--format", "json", env=env, tmp=tmp_path)
        assert run.code == 0, run.err
        digest = json.loads(run.out)
        writers = {s["id"]: s["writer"] for s in digest["sections"]}
        assert writers["summary"] == "llm:qwen3-8b"
        assert writers["appendix"] == "template"
        assert digest["provenance"]["usage"]["prompt_tokens"] > 0
        assert model.requests
        assert all(
            r.headers.get("Authorization") == "Bearer sk-test-secret" for r in model.requests
        )
        assert "sk-test-secret" not in run.out + run.err
        md = await run_cli("today", "--writer", "template", env=env, tmp=tmp_path)
    assert md.code == 0 and "Written by: template" in md.out


async def test_llm_writer_without_endpoint_is_a_config_error(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """`--writer llm` with no endpoint configured exits 6 and says so."""
    run = await run_cli(
        "today", "--writer", "llm", env={"GITHUB_API_URL": github.url}, tmp=tmp_path
    )
    assert run.code == 6
    assert "writer 'llm' is not available" in run.err


async def test_progress_goes_to_a_terminal_stderr_only(github: FakeGitHub, tmp_path: Path) -> None:
    """With stderr on a terminal a progress line shows there; stdout stays plain Markdown."""
    master, slave = pty.openpty()
    try:
        drained = asyncio.get_running_loop().run_in_executor(None, drain, master)
        run = await run_cli("today", env={"GITHUB_API_URL": github.url}, tmp=tmp_path, stderr=slave)
        os.close(slave)
        terminal = (await drained).decode(errors="replace")
    finally:
        os.close(master)
    assert run.code == 0
    assert "Building the vllm-project/vllm digest" in terminal
    assert run.out.startswith("# vLLM Development Report - ") and "\x1b[" not in run.out


async def test_unknown_topic_is_a_usage_error(tmp_path: Path) -> None:
    """`--topic` naming no configured topic exits 2, names the configured ones, asks nothing."""
    run = await run_cli(
        "today", "--topic", "quantum", env={"GITHUB_API_URL": refused_url()}, tmp=tmp_path
    )
    assert run.code == 2
    assert run.err == (
        "vllm-report: unknown topic 'quantum' (configured topics: rocm) (see vllm-report --help)\n"
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"VLLM_REPORT_DB": "/proc/no/such/dir/mirror.sqlite3"}, "cannot open the local mirror"),
        ({"GITHUB_TIMEOUT": "soon"}, "invalid environment setting: timeout"),
        ({"SLACK_PORT": "99999"}, "port (SLACK_PORT): Input should be less than or equal to"),
        ({"VLLM_REPORT_HTTP_PORT": "-1"}, "(VLLM_REPORT_HTTP_PORT): Input should be greater"),
        ({"LLM_CONCURRENCY": "0"}, "concurrency (LLM_CONCURRENCY): Input should be greater"),
    ],
)
async def test_local_setup_problems_are_configuration_errors(
    env: dict[str, str], message: str, tmp_path: Path
) -> None:
    """An unusable mirror path or a malformed setting exits 6 with one line, no traceback."""
    run = await run_cli("today", env={"GITHUB_API_URL": refused_url(), **env}, tmp=tmp_path)
    assert run.code == 6
    assert message in run.err and run.err.count("\n") == 1 and "Traceback" not in run.err


async def test_mistyped_setting_gets_one_warning_naming_the_right_one(tmp_path: Path) -> None:
    """A variable with our prefix that no setting reads is named once, with the closest one."""
    env = {"GITHUB_API_URL": refused_url(), "SLACK_BOT_TOKN": "xoxb-1", "GITHUB_SHA": "abc"}
    run = await run_cli("today", env=env, tmp=tmp_path)
    warnings = [line for line in run.err.splitlines() if "settings.unknown_variable" in line]
    assert len(warnings) == 1
    assert "SLACK_BOT_TOKN" in warnings[0] and "did_you_mean=SLACK_BOT_TOKEN" in warnings[0]
    assert "xoxb-1" not in run.err


async def test_closed_pipe_is_not_an_error(github: FakeGitHub, tmp_path: Path) -> None:
    """A reader that stops early (`| head -1`) ends the command quietly with exit 0."""
    read, write = os.pipe()
    os.close(read)
    try:
        run = await run_cli("today", env={"GITHUB_API_URL": github.url}, tmp=tmp_path, stdout=write)
    finally:
        os.close(write)
    assert run.code == 0 and run.err == ""


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    """``vllm-report --version`` prints the package's version and exits 0."""
    from importlib.metadata import version

    from bot.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"vllm-report {version('vllm-report')}\n"


async def test_next_day_reports_the_follow_up_of_a_hot_issue(tmp_path: Path, now: datetime) -> None:
    """A day after a hot issue, the digest says it was fixed by a merged PR, in md and json."""
    data = generate(days=2, now=now, seed=3)
    start, end = data.day(1)
    hot = next(n for n in data.most_discussed(start, end) if "pull_request" not in data.row(n))
    async with FakeGitHub() as gh:
        repo = gh.add_repo(REPO, issues=data.issues, comments=data.comments)
        env = {"GITHUB_API_URL": gh.url, "VLLM_REPORT_SYNC_FRESH_SECONDS": "0"}
        first = await run_cli("yesterday", "--format", "json", env=env, tmp=tmp_path)
        assert first.code == 0, first.err
        before = {s["id"]: s for s in json.loads(first.out)["sections"]}
        assert hot in before["appendix"]["cites"]  # yesterday lists it; today follows it up
        fix = issue_row(
            REPO,
            49999,
            created=now - timedelta(hours=3),
            merged=now - timedelta(minutes=1),
            updated=datetime.now(UTC).replace(microsecond=0),
            title="[Bugfix] Fix speculative decoding for gpt-oss",
        )
        repo.put_issue({**fix, "body": f"Fixes #{hot}.\n\nThe drafter skipped the last step."})
        second = await run_cli("today", "--format", "json", env=env, tmp=tmp_path)
        markdown = await run_cli("today", "--lang", "en", env=env, tmp=tmp_path)
        chinese = await run_cli("today", "--lang", "zh", env=env, tmp=tmp_path)
    assert second.code == 0 and markdown.code == 0 and chinese.code == 0, second.err
    sections = {s["id"]: s for s in json.loads(second.out)["sections"]}
    assert list(sections)[:2] == ["summary", "followups"]
    assert sections["followups"]["cites"][:2] == [hot, 49999]
    assert "🔁 Follow-ups" in markdown.out and "fixed by" in markdown.out
    assert "🔁 后续进展" in chinese.out and "已由" in chinese.out


async def test_the_chat_grammar_works_on_the_command_line(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """`vllm-report topic rocm week lang:zh` is the chat command; `help` prints the help."""
    env = {"GITHUB_API_URL": github.url}
    run = await run_cli(
        "topic", "rocm", "week", "lang:zh", "--format", "json", env=env, tmp=tmp_path
    )
    assert run.code == 0, run.err
    digest = json.loads(run.out)
    assert digest["lang"] == "zh"
    assert [s["title"] for s in digest["sections"] if "ROCm" in s["title"]]
    start, end = (datetime.fromisoformat(digest["window"][k]) for k in ("start", "end"))
    assert end - start == timedelta(days=7)
    shown = await run_cli("help", env={"GITHUB_API_URL": refused_url()}, tmp=tmp_path)
    assert shown.code == 0 and shown.out.startswith("usage: vllm-report")
    assert "vllm-report topic rocm week" in shown.out


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["subscribe"], "`subscribe` works in Slack and Discord"),
        (["topic"], "say which topic"),
        (["topic", "rocm", "tomorrow"], "unknown window 'tomorrow'"),
    ],
)
async def test_chat_only_or_malformed_commands_exit_2_with_the_chat_words(
    words: list[str], said: str, tmp_path: Path
) -> None:
    """The command line refuses what only makes sense in a channel, in the grammar's words."""
    run = await run_cli(*words, env={"GITHUB_API_URL": refused_url()}, tmp=tmp_path)
    assert run.code == 2 and said in run.err and "Traceback" not in run.err


async def test_compact_json_names_each_item_once(
    github: FakeGitHub, day: Dataset, tmp_path: Path
) -> None:
    """`--format json --compact`: the lists are numbers, each item is written once in `items`."""
    env = {"GITHUB_API_URL": github.url}
    run = await run_cli("today", "--format", "json", "--compact", env=env, tmp=tmp_path)
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["compact"] is True
    listed = [n for numbers in doc["lists"].values() for n in numbers]
    assert [len(numbers) for numbers in doc["lists"].values()] == list(doc["counts"].values())
    assert {str(n) for n in listed} <= set(doc["items"])
    spans = [
        span
        for section in doc["sections"]
        for block in section["blocks"]
        for entry in block.get("items", [block.get("spans", [])])
        for span in entry
    ]
    linked = {span["number"] for span in spans if span["type"] == "item"}
    assert linked and {str(n) for n in linked} <= set(doc["items"])
    assert all(set(span) == {"type", "number"} for span in spans if span["type"] == "item")


async def test_compact_needs_json(tmp_path: Path) -> None:
    """`--compact` without `--format json` is a usage error, said in one line."""
    run = await run_cli("today", "--compact", env={}, tmp=tmp_path)
    assert run.code == 2
    assert run.err == "vllm-report: --compact goes with --format json (see vllm-report --help)\n"


async def test_a_digest_from_the_cache_opens_no_connection(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """Repeated, a past day's digest comes from the cache: no request, and the process never
    loads httpx's connection pool (nor reads the CA bundle it would verify with)."""
    env = {"GITHUB_API_URL": github.url}
    day = (datetime.now(UTC) - timedelta(days=2)).date().isoformat()
    first = await run_cli(day, env=env, tmp=tmp_path)
    made = len(github.requests)
    again = await run_cli("-X", "importtime", day, env=env, tmp=tmp_path, python=True)
    assert first.code == again.code == 0, again.err
    assert len(github.requests) == made
    assert first.out == again.out
    assert not re.search(r"\|\s+httpcore$", again.err, re.M)


def _loaded(importtime: str) -> set[str]:
    """The modules a ``-X importtime`` run imported, from its report on stderr."""
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in importtime.splitlines()
        if line.startswith("import time:")
    }


async def test_a_digest_from_the_cache_loads_neither_questions_nor_serve(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """Repeated, a past day's digest (model-written, with a model configured) loads neither the
    question package, nor what only `serve` runs, nor a chat SDK: the answerer waits for a
    question."""
    from tests.fakes.openai_server import FakeOpenAI

    day = (datetime.now(UTC) - timedelta(days=2)).date().isoformat()
    async with FakeOpenAI() as model:
        env = {"GITHUB_API_URL": github.url, "LLM_BASE_URL": model.base_url, "LLM_MODEL": "m"}
        first = await run_cli(day, env=env, tmp=tmp_path)
        again = await run_cli("-X", "importtime", day, env=env, tmp=tmp_path, python=True)
    assert first.code == again.code == 0, again.err
    assert first.out == again.out
    loaded = _loaded(again.err)
    assert "digest.writers.llm" in loaded  # the model's writer is built, its answerer is not
    unwanted = ("digest.ask", "bot.compose.services", "slack_bolt", "discord", "prometheus_client")
    assert [name for name in unwanted if name in loaded] == []


async def test_a_proxy_in_the_environment_is_honoured(github: FakeGitHub, tmp_path: Path) -> None:
    """With HTTP_PROXY set, requests go through it: here a closed port, so GitHub is
    unreachable (exit 5) though the fake answers directly."""
    env = {"GITHUB_API_URL": github.url, "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}
    run = await run_cli("yesterday", env=env, tmp=tmp_path)
    assert run.code == 5, run.err
    assert not github.requests


BACKUP = """\
subscriptions:
- platform: discord
  channel: '123456789012345678'
  repo: pytorch/pytorch
  time: '10:30'
  timezone: UTC
  lang: en
  writer: template
  schedule: weekly
  day: fri
- platform: slack
  channel: C0123456789
  repo: vllm-project/vllm
  time: 09:00
  timezone: Europe/Berlin
  lang: zh
  topics:
  - rocm
"""


@pytest.fixture(params=["sqlite", "redis"])
def backend_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of a command line on SQLite files, or on a Redis server of its own."""
    if request.param == "sqlite":
        yield {"VLLM_REPORT_DB": str(tmp_path / "m.sqlite3")}
        return
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server")
    server = RedisServer(binary)
    server.start()
    try:
        yield {"REDIS_URL": server.url, "VLLM_REPORT_DB": str(tmp_path / "m.sqlite3")}
    finally:
        server.close()


async def test_subscriptions_round_trip_through_export_and_import(
    tmp_path: Path, backend_env: dict[str, str]
) -> None:
    """``import`` stores a backup's subscriptions; ``export`` writes them back as the same YAML
    entries, which a fresh store imports again; a bad entry is skipped and named."""
    backup = tmp_path / "backup.yaml"
    backup.write_text(BACKUP, "utf-8")
    stored = await run_cli("subscriptions", "import", str(backup), env=backend_env, tmp=tmp_path)
    assert (stored.code, stored.out) == (0, "subscriptions: 2 stored, 0 skipped\n"), stored.err
    exported = await run_cli("subscriptions", "export", env=backend_env, tmp=tmp_path)
    assert exported.code == 0 and exported.out == BACKUP
    out = tmp_path / "again.yaml"
    again = await run_cli(
        "subscriptions", "export", "--out", str(out), env=backend_env, tmp=tmp_path
    )
    assert again.code == 0 and out.read_text("utf-8") == BACKUP
    bad = tmp_path / "bad.yaml"
    bad.write_text(BACKUP.replace("- rocm", "- nosuchtopic"), "utf-8")
    skipped = await run_cli("subscriptions", "import", str(bad), env=backend_env, tmp=tmp_path)
    assert skipped.out == "subscriptions: 1 stored, 1 skipped\n"
    assert "skipped slack:C0123456789" in skipped.err


async def test_importing_a_file_that_is_no_backup_is_a_configuration_error(tmp_path: Path) -> None:
    """A file without a valid ``subscriptions:`` list is refused with exit code 6, storing
    nothing."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("subscriptions:\n- {platform: irc, channel: x}\n", "utf-8")
    run = await run_cli("subscriptions", "import", str(bad), env={}, tmp=tmp_path)
    assert run.code == 6 and "is not a subscriptions file" in run.err


async def test_mcp_refuses_a_port_it_cannot_listen_on(tmp_path: Path) -> None:
    """`vllm-report mcp --http 70000` is a usage error (exit 2) before anything is built."""
    run = await run_cli(
        "mcp", "--http", "70000", env={"GITHUB_API_URL": refused_url()}, tmp=tmp_path
    )
    assert run.code == 2
    assert run.err == (
        "vllm-report: --http takes a port from 1 to 65535, not 70000 (see vllm-report --help)\n"
    )


async def test_an_old_day_built_months_later_on_a_fresh_mirror_is_the_one_made_on_the_day(
    tmp_path: Path,
) -> None:
    """`vllm-report 2026-03-10`, asked months after that day of a ten-day data set on a fresh
    mirror, has the sections, follow-ups and trend verdicts of the digest made on the day, in
    zh and en, as Markdown and JSON (the sync streamed the seven days before it)."""
    from config.settings import load_config
    from digest.builder import DigestBuilder, DigestRequest
    from digest.models import Lang, Window
    from digest.render.json import to_json
    from digest.render.markdown import render_markdown
    from digest.writers.template import TemplateWriter
    from tests.support.sync_rig import rigs

    data = generate(days=10, now=DEFAULT_NOW, seed=5)
    config = load_config()
    async with rigs() as rig_factory:
        rig = await rig_factory(data, token="t", reach_windows=7)
        builder = DigestBuilder(
            store=rig.store,
            sync=rig.syncer,
            writers={"template": TemplateWriter()},
            clock=rig.clock,
        )
        window = Window(*data.day(0), "Asia/Shanghai", "2026-03-10")
        for lang in (Lang.ZH, Lang.EN):
            request = DigestRequest(
                REPO,
                window,
                lang,
                "template",
                config.topics_for(REPO),
                display_name=config.display_name(REPO),
                organisations=config.organisation_map(),
                glossary=config.glossary_for(REPO),
            )
            on_the_day = await builder.build(request)
            assert on_the_day.section("followups") is not None
            env = {"GITHUB_API_URL": rig.fake.url, "GITHUB_TOKEN": "t"}
            flags = ("2026-03-10", "--lang", lang.value, "--writer", "template")
            ran = await run_cli(*flags, "--format", "json", env=env, tmp=tmp_path)
            assert ran.code == 0, ran.err
            later = json.loads(ran.out)
            assert later["sections"] == to_json(on_the_day)["sections"]
            assert later["counts"] == data.expected_counts(window.start, window.end).as_dict()
            shown = await run_cli(*flags, env=env, tmp=tmp_path)
            assert shown.code == 0, shown.err
            made = render_markdown(on_the_day)
            assert shown.out.split("\n---")[0] == made.split("\n---")[0]


async def test_an_old_day_of_a_renamed_repository_asked_by_its_old_name_counts_exactly(
    tmp_path: Path,
) -> None:
    """`vllm-report 2026-03-10` of a repository renamed since: the lists follow GitHub's 301,
    the Search API refuses the old name (422), and the day is built under the new name with
    exact counts; a second run goes straight to the new name (the old one is an alias)."""
    data = generate(days=10, now=DEFAULT_NOW, seed=5)
    new = "vllm-project/vllm-next"
    async with FakeGitHub() as gh:
        gh.add_repo(REPO, issues=data.issues, comments=data.comments)
        gh.rename(REPO, new)
        env = {"GITHUB_API_URL": gh.url}  # no token: the old day goes through the Search API
        flags = ("2026-03-10", "--format", "json", "--writer", "template")
        run = await run_cli(*flags, env=env, tmp=tmp_path)
        assert run.code == 0, run.err
        digest = json.loads(run.out)
        assert digest["counts"] == data.expected_counts(*data.day(0)).as_dict()
        assert digest["repo"] == new and digest["repo_url"].endswith(f"/{new}")
        searched = [r.query["q"] for r in gh.requests if r.path == "/search/issues"]
        assert any(q.startswith(f"repo:{new} ") for q in searched)
        assert 301 in {r.status for r in gh.requests}
        gh.requests.clear()
        again = await run_cli(*flags, "--lang", "zh", env=env, tmp=tmp_path)
        assert again.code == 0, again.err
        assert json.loads(again.out)["counts"] == digest["counts"]
        assert all(f"/{REPO}/" not in f"{r.path}/" for r in gh.requests)
        assert all(f"repo:{REPO} " not in r.query.get("q", "") for r in gh.requests)


async def test_a_search_github_refuses_is_said_as_such(tmp_path: Path) -> None:
    """A 4xx from the Search API (not a rename) exits 3 with GitHub's reason, never "can't be
    reached"."""
    data = generate(days=10, now=DEFAULT_NOW, seed=5)
    async with FakeGitHub() as gh:
        gh.add_repo(REPO, issues=data.issues, comments=data.comments)
        gh.refuse_search = True
        run = await run_cli("2026-03-10", env={"GITHUB_API_URL": gh.url}, tmp=tmp_path)
    assert run.code == 3, run.err
    assert "GitHub refused to search vllm-project/vllm (422: Validation Failed)" in run.err
    assert "can't be reached" not in run.err and "Traceback" not in run.err


async def test_two_repositories_make_one_report_of_both(tmp_path: Path) -> None:
    """`--repo a/b --repo c/d` is one report over both (never only the last), each item
    named with its repository; `--scope` names a configured scope of them."""
    now = datetime.now(UTC).replace(microsecond=0)
    async with FakeGitHub() as gh:
        for repo, n in (("vllm-project/vllm", 1), ("sgl-project/sglang", 2)):
            rows = [
                issue_row(repo, k, created=now - timedelta(hours=k), title=f"Issue {k} of {repo}")
                for k in range(1, n + 1)
            ]
            gh.add_repo(repo, issues=rows, comments=[])
        env = {"GITHUB_API_URL": gh.url}
        two = ("--repo", "vllm-project/vllm", "--repo", "sgl-project/sglang")
        run = await run_cli("today", *two, "--format", "json", env=env, tmp=tmp_path)
        assert run.code == 0, run.err
        digest = json.loads(run.out)
        assert digest["repos"] == ["vllm-project/vllm", "sgl-project/sglang"]
        assert digest["repo_counts"]["vllm-project/vllm"]["new_issues"] == 1
        assert digest["repo_counts"]["sgl-project/sglang"]["new_issues"] == 2
        assert digest["counts"]["new_issues"] == 3
        assert [(i["repo"], i["number"]) for i in digest["lists"]["new_issues"]] == [
            ("sgl-project/sglang", 1),
            ("sgl-project/sglang", 2),
            ("vllm-project/vllm", 1),
        ]
        config = tmp_path / "scopes.yaml"
        config.write_text(
            "scopes:\n  serving:\n    repos: [vllm-project/vllm, sgl-project/sglang]\n"
        )
        scoped = ("today", "--scope", "serving", "--config", str(config))
        run = await run_cli(*scoped, env=env, tmp=tmp_path)
        assert run.code == 0, run.err
        assert "sgl-project/sglang: New issues 2 |" in run.out
        assert "[vllm-project/vllm#1 Issue 1 of vllm-project/vllm]" in run.out


async def test_a_scope_of_an_owner_reports_on_its_active_repositories(tmp_path: Path) -> None:
    """`owner/*` in a configured scope (or `--repo 'owner/*'`) is the owner's repositories
    pushed to today; an owner
    GitHub does not have is refused as a missing repository, exit 3."""
    now = datetime.now(UTC).replace(microsecond=0)
    async with FakeGitHub() as gh:
        for name, n, pushed in (("a", 1, now), ("b", 2, now), ("old", 3, now - timedelta(days=9))):
            repo = f"acme/{name}"
            rows = [
                issue_row(repo, k, created=pushed - timedelta(minutes=k), title=f"Issue {k}")
                for k in range(1, n + 1)
            ]
            gh.add_repo(repo, issues=rows, comments=[]).pushed_at = pushed
        config = tmp_path / "scopes.yaml"
        config.write_text("scopes:\n  amd:\n    repos: ['acme/*']\n  none: {repos: ['nobody/*']}\n")
        env = {"GITHUB_API_URL": gh.url}
        base = ("today", "--config", str(config), "--scope")
        run = await run_cli(*base, "amd", "--format", "json", env=env, tmp=tmp_path)
        assert run.code == 0, run.err
        digest = json.loads(run.out)
        assert sorted(digest["repos"]) == ["acme/a", "acme/b"]
        assert digest["repo_counts"]["acme/b"]["new_issues"] == 2
        assert digest["counts"]["new_issues"] == 3
        assert not [r for r in gh.requests if r.path.startswith("/repos/acme/old/")]
        adhoc = await run_cli(
            "today", "--repo", "acme/*", "--format", "json", env=env, tmp=tmp_path
        )
        assert adhoc.code == 0, adhoc.err
        assert json.loads(adhoc.out)["repo_counts"] == digest["repo_counts"]
        run = await run_cli(*base, "none", env=env, tmp=tmp_path)
    assert run.code == 3, run.err
    assert run.err == (
        "vllm-report: I couldn't find nobody/* on GitHub: check the owner/name spelling "
        "(and that it is public).\n"
    )


async def test_an_unknown_scope_is_a_usage_error(tmp_path: Path) -> None:
    """`--scope` naming no configured scope exits 2, names the configured ones, asks nothing."""
    env = {"GITHUB_API_URL": refused_url()}
    run = await run_cli("today", "--scope", "serving", env=env, tmp=tmp_path)
    assert run.code == 2
    assert run.err == (
        "vllm-report: unknown scope 'serving' (configured scopes: none) (see vllm-report --help)\n"
    )


def test_a_question_takes_one_repository(capsys: pytest.CaptureFixture[str]) -> None:
    """`ask` over two repositories is a usage error naming both, never an answer of the last."""
    from bot.cli import main

    two = ["--repo", "vllm-project/vllm", "--repo", "sgl-project/sglang"]
    assert main(["ask", "what's new?", *two]) == 2
    assert capsys.readouterr().err.endswith(
        "vllm-report ask: error: a question covers one repository: "
        "--repo vllm-project/vllm and --repo sgl-project/sglang\n"
    )


async def test_an_old_day_built_months_later_names_the_pr_that_fixed_its_issue_later(
    tmp_path: Path,
) -> None:
    """`vllm-report 2026-03-10`, asked months later: an issue of that day closed three days on
    by a merged PR shows open, its note naming the PR as a link ("fixed 3 days later by #9" /
    "3 天后由 #9 修复"), the JSON's ``later`` entry giving ``by``; a PR that says it fixes the
    issue but was merged hours before the close is not the one named."""
    start = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)  # the day 2026-03-10 starts
    closed = start + timedelta(days=4, hours=2)
    issue = issue_row(
        REPO, 8, created=start + timedelta(hours=4), closed=closed, title="[Bug] MI300X hangs"
    )
    fix = issue_row(
        REPO,
        9,
        created=start + timedelta(days=2),
        merged=closed - timedelta(seconds=30),
        title="[ROCm] Fix the MI300X hang",
        body="Fixes #8.\n\nThe kernel waited on a stale stream.",
    )
    early = issue_row(
        REPO,
        10,
        created=start + timedelta(days=2),
        merged=closed - timedelta(hours=2),
        title="[ROCm] Work around the MI300X hang",
        body="Fixes #8",
    )
    pull = f"https://github.com/{REPO}/pull/9"
    async with FakeGitHub() as gh:
        gh.add_repo(REPO, issues=[{**issue, "state_reason": "completed"}, fix, early])
        env = {"GITHUB_API_URL": gh.url}
        flags = ("2026-03-10", "--writer", "template")
        en = await run_cli(*flags, "--lang", "en", env=env, tmp=tmp_path)
        zh = await run_cli(*flags, "--lang", "zh", env=env, tmp=tmp_path)
        doc = await run_cli(*flags, "--format", "json", env=env, tmp=tmp_path)
    assert en.code == 0 and zh.code == 0 and doc.code == 0, en.err + zh.err + doc.err
    assert f"(fixed 3 days later by [#9]({pull}))" in en.out
    assert f"（3 天后由 [#9]({pull}) 修复）" in zh.out
    assert "/pull/10" not in en.out
    digest = json.loads(doc.out)
    (entry,) = [e for e in digest["lists"]["new_issues"] if e["number"] == 8]
    assert entry["state"] == "open" and entry["closed_at"] is None
    assert digest["later"] == [
        {
            "number": 8,
            "event": "closed",
            "at": "2026-03-14T05:21:00Z",
            "reason": "completed",
            "by": 9,
        }
    ]
