"""The MCP front end on a runtime: the tools over the runtime's core, mirror and sync, within
chat's limits, and the server that publishes them (``vllm-report mcp``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from bot.compose.runtime import Runtime
from bot.mcp.tools import Admission, ReportTools
from digest.github.reserve import BudgetReserved, interactive
from digest.models import Lang
from digest.state.limiter import Limited, Limiter

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def mcp_admission(runtime: Runtime) -> Admission:
    """Chat's limits for an MCP client: its digests and questions from its own buckets (the
    ``_PER_USER`` rates, counted in the shared state like a member's), and its work kept out
    of the GitHub reserve of the daily posts."""
    limiter = Limiter(runtime.state, runtime.settings.limits.rules(), runtime.clock)

    @asynccontextmanager
    async def admitted(kind: str, client: str, lang: Lang) -> AsyncIterator[None]:
        refusal = await limiter.take(kind, {"user": f"mcp:{client}"})
        if refusal is not None:
            raise Limited(refusal, lang)
        with interactive():
            try:
                yield
            except BudgetReserved as exc:
                raise exc.speaking(lang) from None

    return admitted


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
        admission=mcp_admission(runtime),
    )


def mcp_server(runtime: Runtime, *, version: str = "", verbose: bool = False) -> MCPServer:
    """The MCP server over ``runtime``."""
    from bot.mcp.server import build_server

    return build_server(mcp_tools(runtime), version=version, verbose=verbose)
