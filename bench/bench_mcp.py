"""Benchmark of `vllm-report mcp` over stdio: what an agent waits for.

Starts the fake GitHub with two synthetic vLLM-sized report days that ended before now, then
`vllm-report mcp` through the MCP SDK's stdio client, and measures: the start (spawn to
initialized), a cold `digest` of the first day (GitHub requests, seconds, result size), the
same call again (from the cache, median of WARM calls), `ask "what's new in ROCm?"` and
`items(window=week, topic=rocm)`. Prints one JSON object.

    python bench/bench_mcp.py [--warm 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.fakes.github import FakeGitHub
from tests.support.synthetic import generate

ROOT = Path(__file__).resolve().parents[1]
REPO = "vllm-project/vllm"


async def main(warm: int) -> dict[str, object]:
    now = datetime.now(UTC) - timedelta(minutes=2)
    cut = now.replace(hour=3, minute=21, second=0, microsecond=0)
    cut = cut if cut <= now else cut - timedelta(days=1)
    data = generate(days=2, now=cut, seed=5)
    day = data.day(1)[0].astimezone(ZoneInfo("Asia/Shanghai")).date().isoformat()
    out: dict[str, object] = {"rows": {"issues": len(data.issues), "comments": len(data.comments)}}
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeGitHub() as github:
            github.add_repo(REPO, issues=data.issues, comments=data.comments)
            env = {
                "GITHUB_API_URL": github.url,
                "VLLM_REPORT_DB": str(Path(tmp) / "mirror.sqlite3"),
                "REDIS_URL": "",
                "VLLM_REPORT_LIMIT_DIGESTS_PER_USER": "off",  # the warm calls measure the cache
                "PYTHONPATH": str(ROOT),
            }
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "bot.cli", "mcp"], env=env, cwd=str(ROOT)
            )
            began = time.perf_counter()
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write, read_timeout_seconds=300) as session,
            ):
                await session.initialize()
                out["start_s"] = round(time.perf_counter() - began, 3)
                t0 = time.perf_counter()
                cold = await session.call_tool("digest", {"window": day})
                out["cold_digest_s"] = round(time.perf_counter() - t0, 3)
                out["cold_digest_github_requests"] = len(github.requests)
                out["digest_structured_bytes"] = len(json.dumps(cold.structured_content))
                out["digest_counts"] = (cold.structured_content or {}).get("counts")
                times = []
                for _ in range(warm):
                    t0 = time.perf_counter()
                    again = await session.call_tool("digest", {"window": day})
                    times.append(time.perf_counter() - t0)
                    assert not again.is_error, again.content
                out["warm_digest_median_ms"] = round(statistics.median(times) * 1000, 1)
                made = len(github.requests)
                t0 = time.perf_counter()
                answer = await session.call_tool("ask", {"question": "what's new in ROCm?"})
                out["ask_s"] = round(time.perf_counter() - t0, 3)
                out["ask_items"] = len((answer.structured_content or {}).get("items", []))
                t0 = time.perf_counter()
                listed = await session.call_tool("items", {"window": "week", "topic": "rocm"})
                out["items_s"] = round(time.perf_counter() - t0, 3)
                out["items_total"] = (listed.structured_content or {}).get("total")
                out["ask_and_items_github_requests"] = len(github.requests) - made
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=int, default=20)
    print(json.dumps(asyncio.run(main(parser.parse_args().warm)), indent=2))
