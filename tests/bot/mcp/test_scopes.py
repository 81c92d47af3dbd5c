"""The MCP tools over a scope: `vllm-report mcp --config` with a configured scope, driven by
the SDK's own stdio client against the fake GitHub serving two repositories that share item
numbers."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextResourceContents

from tests.fakes.github import FakeGitHub, issue_row
from tests.support.paths import ROOT
from tests.support.scope_core import scope_rows, scope_yaml
from tests.support.scopes import FILTERED_TOTAL, SGLANG, TOTAL, VLLM

DAY = "2026-03-10"


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub() as gh:
        for repo, (issues, comments) in scope_rows().items():
            gh.add_repo(repo, issues=issues, comments=comments)
        yield gh


def _server(config: Path, github: FakeGitHub, tmp_path: Path) -> StdioServerParameters:
    env = {
        "GITHUB_API_URL": github.url,
        "VLLM_REPORT_DB": str(tmp_path / "mirror.sqlite3"),
        "REDIS_URL": "",
        "PYTHONPATH": str(ROOT),
    }
    args = ["-m", "bot.cli", "mcp", "--config", str(config)]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))


def _text(result: CallToolResult) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


async def test_digest_items_and_ask_take_a_scope(github: FakeGitHub, tmp_path: Path) -> None:
    """`scope` names a configured scope or several repositories on digest, items and ask:
    the scope's digest has the filtered totals and both repositories' items linked to their
    own repository; the ad hoc pair has every item; items name their repository; a question
    and an unknown scope are tool errors in the command line's words; the repositories
    resource lists the scope."""
    env = {
        "GITHUB_API_URL": github.url,
        "VLLM_REPORT_DB": str(tmp_path / "mirror.sqlite3"),
        "REDIS_URL": "",
        "PYTHONPATH": str(ROOT),
    }
    config = scope_yaml(tmp_path / "scopes.yaml")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bot.cli", "mcp", "--config", str(config)],
        env=env,
        cwd=str(ROOT),
    )
    with (tmp_path / "stderr.txt").open("w") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write, read_timeout_seconds=120) as session,
        ):
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ("digest", "ask", "items"):
                assert "scope" in tools[name].input_schema["properties"]

            scoped = await session.call_tool("digest", {"window": DAY, "scope": "serving"})
            assert not scoped.is_error, _text(scoped)
            found = scoped.structured_content
            assert found is not None
            assert (found["scope"], found["repos"]) == ("serving", [VLLM, SGLANG])
            assert found["counts"] == FILTERED_TOTAL.as_dict()
            markdown = _text(scoped)
            assert f"# Serving Development Report - {DAY}" in markdown
            for repo in (VLLM, SGLANG):
                assert f"https://github.com/{repo}/issues/1" in markdown
            assert "Bump torch" not in markdown

            pair = await session.call_tool("digest", {"window": DAY, "scope": f"{VLLM},{SGLANG}"})
            assert pair.structured_content is not None, _text(pair)
            assert pair.structured_content["counts"] == TOTAL.as_dict()
            assert pair.structured_content["scope"] == ""

            listing = await session.call_tool(
                "items", {"window": DAY, "scope": "serving", "topic": "rocm"}
            )
            rows = listing.structured_content
            assert rows is not None, _text(listing)
            assert rows["repos"] == [VLLM, SGLANG]
            assert {(r["repo"], r["number"]) for r in rows["items"]} == {
                (VLLM, 1),
                (VLLM, 2),
                (SGLANG, 1),
            }

            asked = await session.call_tool(
                "ask", {"question": "who is the busiest reviewer?", "scope": "serving"}
            )
            assert asked.is_error
            assert _text(asked) == (
                "a question over scope serving names a topic (configured: rocm), e.g. "
                "\"what's new in ROCm?\", and gets that topic's report over it; any other "
                "question covers one repository: give repo instead of scope "
                "(see vllm-report --help)"
            )
            unknown = await session.call_tool("digest", {"window": DAY, "scope": "nope"})
            assert unknown.is_error
            assert "unknown scope 'nope' (configured scopes: serving)" in _text(unknown)
            both = await session.call_tool("digest", {"scope": "serving", "repo": VLLM})
            assert both.is_error and "not both" in _text(both)

            resource = await session.read_resource("vllm-report://repositories")
            (contents,) = resource.contents
            assert isinstance(contents, TextResourceContents)
            assert json.loads(contents.text)["scopes"] == [
                {"name": "serving", "display_name": "Serving", "repos": [VLLM, SGLANG]}
            ]


async def test_a_question_over_a_scope_naming_a_topic_is_its_report(tmp_path: Path) -> None:
    """`ask` over a scope (or `across serving` in the question) naming a configured topic
    answers with that topic's section of the scope's report this week, and the items it
    links, each with its own repository's URL, #1 of both repositories apart."""
    now = datetime.now(UTC).replace(microsecond=0)
    rows = {
        VLLM: [
            issue_row(VLLM, 1, created=now - timedelta(hours=3), title="[ROCm] MI300X crash"),
            issue_row(VLLM, 2, created=now - timedelta(hours=2), title="Scheduler stalls"),
        ],
        SGLANG: [
            issue_row(SGLANG, 1, created=now - timedelta(hours=1), title="[ROCm] gfx942 build"),
        ],
    }
    async with FakeGitHub() as gh:
        for repo, issues in rows.items():
            gh.add_repo(repo, issues=issues, comments=[])
        params = _server(scope_yaml(tmp_path / "scopes.yaml"), gh, tmp_path)
        with (tmp_path / "stderr.txt").open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write, read_timeout_seconds=120) as session,
            ):
                await session.initialize()
                for args in (
                    {"question": "what's new in ROCm?", "scope": "serving"},
                    {"question": "what's new in ROCm across serving?"},
                ):
                    asked = await session.call_tool("ask", args)
                    found = asked.structured_content
                    assert found is not None and not asked.is_error, _text(asked)
                    assert (found["topic"], found["scope"]) == ("rocm", "serving")
                    assert found["repos"] == [VLLM, SGLANG]
                    assert found["window"]["label"].startswith(("week", "last 7"))
                    assert {(i["repo"], i["number"], i["url"]) for i in found["items"]} == {
                        (VLLM, 1, f"https://github.com/{VLLM}/issues/1"),
                        (SGLANG, 1, f"https://github.com/{SGLANG}/issues/1"),
                    }
                    assert [i["title"] for i in found["items"]].count("Scheduler stalls") == 0
                    markdown = found["markdown"]
                    assert markdown.startswith("## ") and "ROCm" in markdown.split("\n")[0]
                    assert f"[{VLLM}#1" in markdown and f"[{SGLANG}#1" in markdown
                    assert "Scheduler stalls" not in markdown
