"""The MCP front end on a runtime: the tools over the runtime's core, mirror and sync, and
the server that publishes them (``vllm-report mcp``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.compose.runtime import Runtime
from bot.mcp.tools import ReportTools

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def mcp_tools(runtime: Runtime) -> ReportTools:
    """The tools' work, over the same digest service, cache and mirror as every command."""
    return ReportTools(
        core=runtime.core,
        store=runtime.store,
        sync=runtime.sync,
        config=runtime.config,
        clock=runtime.clock,
        github=runtime.github,
        web_url=runtime.settings.github.web_url,
    )


def mcp_server(runtime: Runtime, *, version: str = "", verbose: bool = False) -> MCPServer:
    """The MCP server over ``runtime``."""
    from bot.mcp.server import build_server

    return build_server(mcp_tools(runtime), version=version, verbose=verbose)
