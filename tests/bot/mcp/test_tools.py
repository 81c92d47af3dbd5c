"""The MCP tools' work in-process: over a real runtime (SQLite) and the fake GitHub."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.commands.grammar import UsageError
from bot.compose import build_runtime
from bot.compose.mcp import mcp_tools
from bot.mcp import ReportTools
from bot.mcp.tools import section_ids, tool_line
from config.settings import GitHubSettings, RedisSettings, Settings, load_config
from digest.errors import DigestError, NotFound, RepoRefused
from digest.models import Lang, Pointer, Window
from tests.fakes.github import FakeGitHub, comment_row, issue_row
from tests.support.clock import Clock

REPO = "vllm-project/vllm"
NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)


def _rows() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    issue = issue_row(REPO, 101, created=NOW - timedelta(hours=5), title="[ROCm] MI300X FP8 crash")
    fix = issue_row(
        REPO,
        102,
        created=NOW - timedelta(hours=9),
        merged=NOW - timedelta(hours=2),
        title="[ROCm] Fix the MI300X FP8 crash",
        login="carol-amd",
    )
    fix["body"] = "The scale was read twice.\n\nFixes #101"
    docs = issue_row(REPO, 103, created=NOW - timedelta(hours=3), title="Docs: typo in README")
    old = issue_row(REPO, 50, created=NOW - timedelta(days=60), title="An old question")
    comments = [
        comment_row(REPO, 9001, 101, created=NOW - timedelta(hours=4), login="dave"),
        comment_row(
            REPO,
            9002,
            101,
            created=NOW - timedelta(hours=3),
            login="erin",
            body="I don't think the scale should be read at load time; cache it instead.",
        ),
        comment_row(REPO, 9003, 101, created=NOW - timedelta(hours=2), login="dave"),
        comment_row(REPO, 9004, 101, created=NOW - timedelta(hours=1), login="ci[bot]"),
    ]
    return [issue, fix, docs, old], comments


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub(clock=lambda: NOW) as gh:
        issues, comments = _rows()
        repo = gh.add_repo(REPO, issues=issues[:3], comments=comments)
        repo.put_issue(issues[3])  # on GitHub, not updated since long before the window
        yield gh


@pytest.fixture
async def tools(github: FakeGitHub, tmp_path: Path) -> AsyncIterator[ReportTools]:
    settings = Settings(
        github=GitHubSettings(api_url=github.url),
        db=str(tmp_path / "m.db"),
        redis=RedisSettings(url=None),
    )  # type: ignore[call-arg]
    async with build_runtime(settings, load_config(), clock=Clock(NOW)) as runtime:
        yield mcp_tools(runtime)


async def test_items_filter_by_topic_kind_state_and_words(tools: ReportTools) -> None:
    """The window's items pass every filter given; people's comments count, bots' do not."""
    every = await tools.items("today")
    assert [row.number for row in every.items] == [101, 102, 103] and every.total == 3
    assert [r.number for r in (await tools.items("today", topic="rocm")).items] == [101, 102]
    assert [r.number for r in (await tools.items("today", kind="pr")).items] == [102]
    assert [r.number for r in (await tools.items("today", state="open")).items] == [101, 103]
    assert [r.number for r in (await tools.items("today", query="fp8 crash")).items] == [
        101,
        102,
    ]
    assert [r.number for r in (await tools.items("today", limit=1)).items] == [101]
    discussed = every.items[0]
    assert (discussed.comments, discussed.participants, discussed.review_comments) == (3, 2, 0)
    assert every.items[1].state == "merged" and every.items[1].author == "carol-amd"


async def test_an_unknown_topic_or_a_bad_window_is_a_usage_error(tools: ReportTools) -> None:
    """An unknown topic or window is refused in the command line's words, before any fetch."""
    with pytest.raises(UsageError) as unknown:
        await tools.items("today", topic="tpu")
    assert tools.error_text(unknown.value) == (
        "unknown topic 'tpu' (configured topics: rocm) (see vllm-report --help)"
    )
    with pytest.raises(Exception) as bad:
        await tools.items("2099-01-01")
    assert tools.error_text(bad.value).startswith("That window doesn't work: ")


async def test_an_item_with_its_fixes_and_discussion(tools: ReportTools) -> None:
    """An issue names the PR that fixes it and what people said; the PR names the issue."""
    issue = await tools.item(101, window="today")
    assert [pr.number for pr in issue.fixed_by] == [102] and issue.fixes == []
    assert issue.discussion.participants == ["dave", "erin"]
    assert issue.discussion.comments == 3 and len(issue.discussion.latest) == 3
    assert issue.discussion.latest[-1].author == "dave"
    summary = issue.discussion.summary
    assert "[#101" in summary and "(https://github.com/dave)" in summary
    assert "cache it instead" in summary and "(https://github.com/erin)" in summary
    zh = await tools.item(101, window="today", lang=Lang.ZH)
    assert "状态" in zh.discussion.summary or "讨论" in zh.discussion.summary
    pr = await tools.item(102, window="today")
    assert [(i.number, i.state) for i in pr.fixes] == [(101, "open")]
    assert "Fixes #101" in pr.body_excerpt and pr.discussion.comments == 0
    assert pr.discussion.summary == ""


async def test_an_item_outside_the_mirror_comes_from_github(
    tools: ReportTools, github: FakeGitHub
) -> None:
    """An item the window's sync did not bring is read from GitHub; one GitHub lacks is not
    found, in the command line's words."""
    old = await tools.item(50, window="today")
    assert old.item.title == "An old question" and old.discussion.comments == 0
    assert any(r.path.endswith("/issues/50") for r in github.requests)
    with pytest.raises(NotFound) as missing:
        await tools.item(999, window="today")
    assert "couldn't find" in tools.error_text(missing.value)


async def test_digest_sections_and_progress_of_a_cold_fetch(
    tools: ReportTools, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A digest shows the sections asked for; a cold fetch that takes a while reports its start,
    that it is still going, and its end, in increasing steps; a warm one reports nothing."""
    monkeypatch.setattr("bot.mcp.tools.HEARTBEAT_S", 0.05)
    github.stall_at = {1}
    github.stall_seconds = 0.3
    heard: list[tuple[float, float | None, str]] = []

    async def progress(done: float, total: float | None, message: str) -> None:
        heard.append((done, total, message))

    made = await tools.digest("today", sections=["topic", "summary"], progress=progress)
    assert [s.id for s in made.sections] == ["summary", "topic:rocm"]
    assert made.lists is None and made.counts.new_issues == 2
    assert "## 📊 Daily summary" in made.markdown and "Hot discussions" not in made.markdown
    assert heard[0][2] == f"Fetching {REPO} from GitHub for today; a first fetch can take a minute."
    assert any(message.startswith(f"Still fetching {REPO}") for _, _, message in heard)
    assert heard[-1] == (heard[-1][0], heard[-1][0], f"Fetched {REPO} from GitHub.")
    steps = [done for done, _, _ in heard]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    heard.clear()
    assert await tools.digest("today", sections=["summary", "topic"], progress=progress) is made
    assert heard == []
    other = await tools.digest("today", topics=[], sections=["summary"])
    assert other is not made and [s.id for s in other.sections] == ["summary"]


async def test_slow_work_on_a_warm_mirror_says_it_is_still_going(
    tools: ReportTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Work that outlasts a heartbeat without fetching (a model writing, say) still reports
    that it runs, so that a client waiting on progress waits on."""
    await tools.digest("today")
    monkeypatch.setattr("bot.mcp.tools.HEARTBEAT_S", 0.01)
    heard: list[tuple[float, float | None, str]] = []

    async def progress(done: float, total: float | None, message: str) -> None:
        heard.append((done, total, message))

    async def slow() -> int:
        await asyncio.sleep(0.1)
        return 7

    got = await tools._fetching(REPO, "today", slow(), progress, cold=False)
    assert got == 7 and heard[0][2] == f"Still working on {REPO} (0 s so far)."
    assert heard[-1][2] == "Done." and heard[-1][0] == heard[-1][1]


async def test_the_answer_links_its_items_with_their_state(tools: ReportTools) -> None:
    """The answer's linked items come with their kind, title and state from the mirror."""
    answer = await tools.ask("what's new in ROCm today?")
    assert [(i.number, i.state) for i in answer.items] == [(102, "merged"), (101, "open")]
    assert answer.topic == "rocm" and "#102" in answer.markdown


async def test_an_admission_refusal_spends_nothing(github: FakeGitHub, tmp_path: Path) -> None:
    """Each tool asks the admission to let its kind of work in for its client; a refusal stops
    the work before any GitHub request, and its words are the tool's error."""

    class Refused(DigestError):
        pass

    asked: list[tuple[str, str, Lang]] = []

    @asynccontextmanager
    async def admission(kind: str, client: str, lang: Lang) -> AsyncIterator[None]:
        asked.append((kind, client, lang))
        if kind == "question":
            raise Refused("too many questions")
        yield

    settings = Settings(
        github=GitHubSettings(api_url=github.url),
        db=str(tmp_path / "a.db"),
        redis=RedisSettings(url=None),
    )  # type: ignore[call-arg]
    async with build_runtime(settings, load_config(), clock=Clock(NOW)) as runtime:
        tools = mcp_tools(runtime)
        limited = ReportTools(
            core=runtime.core,
            store=runtime.store,
            sync=runtime.sync,
            config=runtime.config,
            clock=runtime.clock,
            admission=admission,
        )
        with pytest.raises(Refused) as refused:
            await limited.ask("what's new in ROCm?", client="http:abc", lang=Lang.ZH)
        assert github.requests == []
        assert tools.error_text(refused.value) == "Couldn't build the digest: too many questions."
        await limited.items("today", client="http:abc")
        await limited.digest("today")
    assert asked == [
        ("question", "http:abc", Lang.ZH),
        ("digest", "http:abc", Lang.EN),
        ("digest", "stdio", Lang.EN),
    ]


async def test_a_repository_off_the_allow_list_is_refused_without_a_request(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """With an allow-list, every tool refuses another repository as the command line does,
    before any GitHub request."""
    settings = Settings(
        github=GitHubSettings(api_url=github.url),
        db=str(tmp_path / "l.db"),
        redis=RedisSettings(url=None),
        allowed_repos="vllm-project/*",
    )  # type: ignore[call-arg]
    async with build_runtime(settings, load_config(), clock=Clock(NOW)) as runtime:
        tools = mcp_tools(runtime)
        for work in (
            tools.digest("today", repo="evil/repo"),
            tools.items("today", repo="evil/repo"),
            tools.item(1, repo="evil/repo"),
            tools.ask("what's new?", repo="evil/repo"),
        ):
            with pytest.raises(RepoRefused) as refused:
                await work
            assert "evil/repo" in tools.error_text(refused.value)
            assert "vllm-project/*" in tools.error_text(refused.value)
    assert github.requests == []


def test_section_ids_keep_the_digest_order_and_refuse_unknown_ones() -> None:
    """Named sections come in the digest's order; `topic` names every topic section."""

    class Shown:
        sections = tuple(
            type("S", (), {"id": i})() for i in ("summary", "topic:rocm", "topic:tpu", "hot")
        )

    digest = Shown()
    assert section_ids(digest, None) == ["summary", "topic:rocm", "topic:tpu", "hot"]  # type: ignore[arg-type]
    assert section_ids(digest, ["hot", "topic"]) == ["topic:rocm", "topic:tpu", "hot"]  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="no section 'charts'"):
        section_ids(digest, ["charts"])  # type: ignore[arg-type]


def test_an_answer_points_to_the_tool_call_that_shows_more() -> None:
    """A pointer reads as the tool call an agent makes next."""
    week = Window(NOW - timedelta(days=7), NOW, label="week", ends_now=True)
    assert tool_line(Pointer(window=week, topic="rocm")) == (
        'digest(window="week", topics=["rocm"])'
    )
    assert tool_line(Pointer(question="最近 ROCm 有什么新动态")) == (
        'ask(question="最近 ROCm 有什么新动态")'
    )
