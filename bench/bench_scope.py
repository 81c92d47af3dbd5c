"""Benchmark of a scope's digest: what two repositories in one report cost in GitHub requests.

Serves two synthetic vLLM-sized repositories (``vllm-project/vllm`` and ``sgl-project/sglang``,
their item numbers overlapping) from the fake GitHub and builds one window's digest through the
real pipeline (SQLite mirror, sync gate, digest service, template writer) with a token:

- each repository's digest alone, each on a cold store;
- the two-repository digest on a cold store, then its repeat within the minute (the sync gate's
  freshness), and its repeat 3 minutes later (past it: every repository syncs again).

Prints the requests of each, per repository, and checks them against the scope's budget: the
cold digest costs at most the sum of the single ones, a repeat at most 2 per repository.

    python bench/bench_scope.py [--days 1] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from config.settings import load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestBuilder, DigestRequest
from digest.github.client import GitHubClient
from digest.mirror.gate import SyncGate
from digest.mirror.sync import Syncer
from digest.models import Digest, Lang, Window
from digest.scope import Scope
from digest.service import DigestService
from digest.writers.template import TemplateWriter
from tests.fakes.github import FakeGitHub, RecordingSleep
from tests.support.clock import Clock
from tests.support.synthetic import DEFAULT_NOW, generate

REPOS = ("vllm-project/vllm", "sgl-project/sglang")


class Bench:
    """The fake GitHub with both repositories, and a fresh pipeline per ``service()``."""

    def __init__(self, fake: FakeGitHub, clock: Clock, window: Window) -> None:
        self.fake, self.clock, self.window = fake, clock, window

    def request(self, repos: tuple[str, ...]) -> DigestRequest:
        topics = (load_config().topic("rocm"),)
        scope = Scope(repos) if len(repos) > 1 else None
        return DigestRequest(repos[0], self.window, Lang.EN, "template", topics, scope=scope)

    def count(self, since: int) -> dict[str, int]:
        """The requests since request ``since``, per repository."""
        made = self.fake.requests[since:]
        return {repo: sum(r.path.startswith(f"/repos/{repo}/") for r in made) for repo in REPOS}

    async def cold(self, http: httpx.AsyncClient, repos: tuple[str, ...]) -> dict[str, int]:
        """A digest of ``repos`` on a cold store; returns its requests and keeps the service
        for the repeats."""
        client = GitHubClient(
            http, token="bench", sleep=RecordingSleep(self.clock), clock=self.clock
        )
        self.store, self.state = SQLiteStore(":memory:"), SQLiteState(":memory:", clock=self.clock)
        gate = SyncGate(Syncer(client, self.store, clock=self.clock), self.state, self.clock)
        builder = DigestBuilder(
            store=self.store, sync=gate, writers={"template": TemplateWriter()}, clock=self.clock
        )
        self.service = DigestService(builder, self.state, self.clock, store=self.store, sync=gate)
        return await self.timed(repos)

    async def timed(self, repos: tuple[str, ...]) -> dict[str, int]:
        since = len(self.fake.requests)
        self.digest: Digest = await self.service.get_digest(self.request(repos))
        return self.count(since)

    async def close(self) -> None:
        await self.state.close()
        await self.store.close()


def _line(name: str, counts: dict[str, int]) -> str:
    each = ", ".join(f"{repo} {n}" for repo, n in counts.items() if n)
    return f"{name:<38} {sum(counts.values()):>4} requests ({each or 'none'})"


async def run(days: int, seed: int) -> bool:
    clock = Clock(DEFAULT_NOW)
    window = Window(DEFAULT_NOW - timedelta(days=days), DEFAULT_NOW, "UTC", f"{days}d")
    async with FakeGitHub(clock=clock) as fake:
        for k, repo in enumerate(REPOS):
            data = generate(days=days, now=DEFAULT_NOW, seed=seed + k, repo=repo)
            fake.add_repo(
                repo,
                issues=data.issues,
                comments=data.comments,
                review_comments=data.review_comments,
            )
        async with httpx.AsyncClient(base_url=fake.url, timeout=30.0) as http:
            bench = Bench(fake, clock, window)
            singles: dict[str, int] = {}
            for repo in REPOS:
                found = await bench.cold(http, (repo,))
                singles[repo] = found[repo]
                print(_line(f"{repo} alone, cold", found))
                await bench.close()
            cold = await bench.cold(http, REPOS)
            print(_line("both in one digest, cold", cold))
            counts = dict(bench.digest.repo_counts)
            clock.advance(timedelta(seconds=30))
            soon = await bench.timed(REPOS)
            print(_line("its repeat 30 s later", soon))
            clock.advance(timedelta(minutes=3))
            later = await bench.timed(REPOS)
            print(_line("its repeat 3 min later (syncs again)", later))
            await bench.close()
    for repo, c in counts.items():
        print(f"  {repo}: {c.as_dict()}")
    ok = sum(cold.values()) <= sum(singles.values()) and all(
        n <= 2 for found in (soon, later) for n in found.values()
    )
    print(
        f"cold {sum(cold.values())} <= singles {sum(singles.values())}; "
        f"repeats <= 2 per repository: {'ok' if ok else 'NOT MET'}"
    )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.exit(0 if asyncio.run(run(args.days, args.seed)) else 1)


if __name__ == "__main__":
    main()
