"""The MCP front end on a runtime: the same digest service and cache as every command."""

from __future__ import annotations

from pathlib import Path

from bot.compose import build_runtime
from bot.compose.mcp import mcp_server, mcp_tools
from config.settings import load_config
from tests.bot.compose.conftest import at_now, settings_for
from tests.fakes.github import FakeGitHub


async def test_the_tools_share_the_runtimes_digest_cache(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """A digest the tools built is the command runner's next answer, from the cache."""
    settings = settings_for(github, tmp_path / "m.db")
    async with build_runtime(settings, load_config(), clock=at_now) as runtime:
        made = await mcp_tools(runtime).digest("today")
        requests = len(github.requests)
        again = await runtime.core.build(runtime.core.request("today"))
        assert runtime.builder.builds == 1 and len(github.requests) == requests
    assert again.counts.as_dict() == made.counts.model_dump()


async def test_the_server_publishes_four_tools_and_two_resources(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """The server over a runtime lists the four tools, the day template and the config."""
    settings = settings_for(github, tmp_path / "m.db")
    async with build_runtime(settings, load_config(), clock=at_now) as runtime:
        server = mcp_server(runtime, version="9.9")
        tools = await server.list_tools()
        templates = await server.list_resource_templates()
        resources = await server.list_resources()
    assert [t.name for t in tools] == ["digest", "ask", "items", "item"]
    assert [t.uri_template for t in templates] == ["vllm-report://{owner}/{name}/{date}/{lang}"]
    assert [str(r.uri) for r in resources] == ["vllm-report://repositories"]
    assert server.version == "9.9"
    assert server.instructions is not None and "vllm-project/vllm by default" in server.instructions
