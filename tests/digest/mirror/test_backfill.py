"""A long reach back: every row since a day, resumable, paced by the rate limit."""

from __future__ import annotations

import json
import math
from datetime import timedelta

import pytest

from digest.mirror.backfill import Backfill, Progress
from tests.fakes.github import RecordedRequest
from tests.support.sync_rig import REPO, Rig, RigFactory
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate


@pytest.fixture(scope="module")
def ten_days() -> Dataset:
    return generate(days=10, now=DEFAULT_NOW, seed=4, review_share=0.3)


def _backfill(rig: Rig) -> Backfill:
    return Backfill(rig.client, rig.store, clock=rig.clock, sleep=rig.sleep)


def _asked(requests: list[RecordedRequest]) -> list[str]:
    """Each page query as path and parameters (the count probes excluded)."""
    return [f"{r.path}?{json.dumps(r.query, sort_keys=True)}" for r in requests if r.status == 200]


def _pages(data: Dataset) -> int:
    issues, comments = data.rows_updated_since(data.start)
    reviews = data.review_rows_updated_since(data.start)
    return sum(math.ceil(n / 100) for n in (issues, comments, reviews))


async def _mirrored(rig: Rig) -> tuple[int, int]:
    items, comments = await rig.snapshot()
    return len(items), len(comments)


def _since_start(data: Dataset) -> tuple[int, int]:
    """The items, and the comments and review comments, updated since the data's first day."""
    issues, comments = data.rows_updated_since(data.start)
    return issues, comments + data.review_rows_updated_since(data.start)


async def test_a_backfill_mirrors_every_row_in_a_request_a_page(
    rig_factory: RigFactory, ten_days: Dataset
) -> None:
    """From the first day, every issue, PR, comment and review comment is mirrored, the mirror
    is covered from that day, and it takes one request per page of 100 rows and a few more."""
    rig = await rig_factory(ten_days, token="t")
    seen: list[Progress] = []
    result = await _backfill(rig).run(REPO, ten_days.start, on_progress=seen.append)
    assert result.complete and result.covered_since == ten_days.start
    items, comments = _since_start(ten_days)
    assert await _mirrored(rig) == (items, comments)
    assert (result.items, result.comments + result.review_comments) == (items, comments)
    assert _pages(ten_days) <= result.requests <= _pages(ten_days) + 3
    state = await rig.store.get_sync_state(REPO)
    assert not [k for k in state.etags if k.startswith("reach-")]
    estimates = {p.estimated for p in seen if p.stream != "done"}
    assert max(estimates) - min(estimates) <= 3  # the first pages' rel="last" told the cost
    assert abs(seen[-1].requests - max(estimates)) <= 3
    assert [p.requests for p in seen] == sorted(p.requests for p in seen)


async def test_a_backfill_stopped_by_the_limit_resumes_without_asking_a_page_twice(
    rig_factory: RigFactory, ten_days: Dataset
) -> None:
    """GitHub's limit runs out mid-way: the backfill stops with the reset time, keeps what it
    stored, and the run after the reset completes it without asking for any page again."""
    rig = await rig_factory(ten_days, token="t")
    stop_at = _pages(ten_days) // 2
    rig.fake.before_request = lambda r: rig.fake.exhaust() if r.number == stop_at else None
    stopped = await _backfill(rig).run(REPO, ten_days.start)
    assert not stopped.complete and stopped.stopped_until is not None
    assert stopped.covered_since is None
    assert (await rig.store.get_sync_state(REPO)).covered_since is None
    rig.fake.before_request = None
    rig.clock.now = stopped.stopped_until + timedelta(seconds=1)
    resumed = await _backfill(rig).run(REPO, ten_days.start)
    assert resumed.complete and resumed.covered_since == ten_days.start
    asked = _asked(rig.fake.requests)
    assert len(asked) == len(set(asked)), "a page was asked for twice"
    assert stopped.requests + resumed.requests <= _pages(ten_days) + 4  # the refused one
    assert await _mirrored(rig) == _since_start(ten_days)


async def test_without_a_token_it_stops_at_the_share_kept_or_waits_for_the_reset(
    rig_factory: RigFactory, ten_days: Dataset
) -> None:
    """Paced by X-RateLimit-Remaining: without a token it stops when 12 of the hour's 60
    requests are left (kept for commands); with ``wait`` it sleeps until each reset and
    completes."""
    rig = await rig_factory(ten_days)
    stopped = await _backfill(rig).run(REPO, ten_days.start)
    assert not stopped.complete and stopped.requests == 60 - 12
    assert rig.client.remaining() == 12
    waited = await _backfill(rig).run(REPO, ten_days.start, wait=True)
    assert waited.complete and waited.covered_since == ten_days.start
    assert rig.sleep.delays and all(d > 0 for d in rig.sleep.delays)
    assert await _mirrored(rig) == _since_start(ten_days)
