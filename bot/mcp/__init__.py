"""The Model Context Protocol front end: the digest, questions and the window's items as
tools for coding agents (``vllm-report mcp``, over stdio or streamable HTTP)."""

from bot.mcp.tools import ReportTools

__all__ = ["ReportTools"]
