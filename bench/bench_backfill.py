"""Benchmark of a full-history backfill: the requests it takes to mirror a vLLM-sized repository.

Serves a synthetic repository (``tests/support/history.py``: by default about 37,000 issues
and PRs over 1,100 days, 250,000 comments and 100,000 review comments, as vLLM has) from the
fake GitHub, and runs ``vllm-report mirror backfill``'s core (``digest.mirror.backfill``) from
its first day into a fresh SQLite mirror, with a token (5,000 requests an hour). GitHub's limit
is forced to run out once at ``--stop-at`` of the way (a rate-limit stop); the backfill stops
with the reset time, and a second run after the reset resumes, waiting for the next reset when
the share kept for commands is reached. Prints the requests made (target: at most 5,000), the
items, comments and review comments mirrored, the rows per request, the pages asked for twice
(must be 0), whether the mirror matches the repository, and the time taken.

    python bench/bench_backfill.py [--scale 1.0] [--stop-at 0.4]

``--scale`` sizes the repository (0.1: a tenth of vLLM); the requests scale with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from digest.backends.sqlite.mirror import SQLiteStore
from digest.github.client import GitHubClient
from digest.mirror.backfill import Backfill
from tests.fakes.github import FakeGitHub, RecordingSleep
from tests.support.clock import Clock
from tests.support.history import generate_history

REPO = "vllm-project/vllm"
TARGET = 5_000


async def bench(args: argparse.Namespace) -> dict[str, object]:
    began = time.monotonic()
    history = generate_history(
        items=round(37_000 * args.scale),
        comments=round(250_000 * args.scale),
        reviews=round(100_000 * args.scale),
        days=1_100,
    )
    generated = time.monotonic() - began
    rows = len(history.issues) + len(history.comments) + len(history.review_comments)
    clock = Clock(history.now)
    sleep = RecordingSleep(clock)
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeGitHub(clock=clock) as fake:
            fake.add_repo(REPO, history.issues, history.comments, history.review_comments)
            pages = sum(
                math.ceil(len(r) / 100)
                for r in (history.issues, history.comments, history.review_comments)
            )
            stop_at = max(2, round(pages * args.stop_at))
            fake.before_request = lambda r: fake.exhaust() if r.number == stop_at else None
            store = SQLiteStore(str(Path(tmp) / "mirror.sqlite3"))
            async with httpx.AsyncClient(base_url=fake.url, timeout=30.0) as http:
                client = GitHubClient(http, token="bench", sleep=sleep, clock=clock)
                backfill = Backfill(client, store, clock=clock, sleep=sleep)
                started = time.monotonic()
                first = await backfill.run(REPO, history.start)
                fake.before_request = None
                if first.stopped_until is not None:
                    clock.set(first.stopped_until + timedelta(seconds=1))
                second = await backfill.run(REPO, history.start, wait=True)
                took = time.monotonic() - started
            items = await store.items_updated(REPO, history.start, history.now + timedelta(1))
            comments = await store.comments_created(REPO, history.start, history.now + timedelta(1))
            await store.close()
        answered = [
            f"{r.path}?{json.dumps(r.query, sort_keys=True)}"
            for r in fake.requests
            if r.status == 200
        ]
    repeated = sum(n - 1 for n in Counter(answered).values() if n > 1)
    requests = len(fake.requests)
    reviews = sum(c.is_review for c in comments)
    return {
        "scale": args.scale,
        "repository": {
            "items": len(history.issues),
            "comments": len(history.comments),
            "review_comments": len(history.review_comments),
            "pages_of_100": pages,
        },
        "requests": requests,
        "target": round(TARGET * args.scale),
        "within_target": requests <= TARGET * args.scale,
        "refused_by_the_limit": sum(r.status == 403 for r in fake.requests),
        "first_run": {"requests": first.requests, "stopped_until": str(first.stopped_until)},
        "resumed_run": {"requests": second.requests, "complete": second.complete},
        "waits_for_reset": len(sleep.delays),
        "pages_asked_twice": repeated,
        "mirrored": {
            "items": len(items),
            "comments": len(comments) - reviews,
            "review_comments": reviews,
        },
        "complete_and_exact": second.complete
        and len(items) == len(history.issues)
        and len(comments) == len(history.comments) + len(history.review_comments),
        "rows_per_request": round(rows / max(1, requests), 1),
        "projected_full_size_requests": round(requests / args.scale),
        "seconds": {"generate": round(generated, 1), "backfill": round(took, 1)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="repository size (1.0: vLLM)")
    parser.add_argument("--stop-at", type=float, default=0.4, help="forced stop, share of pages")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(bench(args)), indent=2))


if __name__ == "__main__":
    main()
