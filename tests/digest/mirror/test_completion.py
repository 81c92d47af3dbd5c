"""When a sync the rate limit stopped can complete, and that it does by then."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from digest.models import Window
from tests.support.sync_rig import REPO, RigFactory, today
from tests.support.synthetic import Dataset


async def test_stopped_backfill_says_when_it_completes(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """A stopped sync names its completion: the requests the missing streams still need, at
    the limit's 60 an hour from its reset; the resumed sync needs no more than that."""
    rig = await rig_factory(one_day)
    window = today(one_day)
    rig.fake.exhaust_from = 5
    stopped = await rig.syncer.ensure(REPO, window)
    done = stopped.completion
    assert done is not None and done.per_hour == 60
    assert 2 <= done.requests <= 60  # comments and review comments each need a page or more
    assert done.at == datetime(2026, 3, 11, 4, 21, tzinfo=UTC)  # within the hour after the reset
    rig.clock.advance(timedelta(minutes=1))
    again = await rig.syncer.ensure(REPO, window)  # stopped at its first request: no pace read
    assert again.completion is not None
    # within a page or two for each stream still missing (the issues, read in full, are not)
    assert abs(again.completion.requests - done.requests) <= max(3, done.requests // 4)
    rig.fake.exhaust_from = None
    rig.clock.now = done.at + timedelta(seconds=1)
    resumed = await rig.syncer.ensure(REPO, window)
    assert resumed.notes == () and resumed.completion is None
    used = resumed.requests_by_stream
    assert used["comments"] + used["review_comments"] <= done.requests


async def test_token_less_backfill_completes_when_it_said(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """A token-less 14-day backfill takes more than an hour's 60 requests: each stopped stage
    names a completion that follows from its reset and the requests it still needs, and the
    syncs after each reset complete the mirror by the hour the first stage named."""
    rig = await rig_factory(twenty_days)
    window = Window(twenty_days.now - timedelta(days=14), twenty_days.now)
    result = await rig.syncer.ensure(REPO, window)
    first = result.completion
    assert first is not None
    stages = []
    while result.completion is not None:
        reset = rig.client.rate["core"].reset_at
        assert reset is not None
        hours = math.ceil(result.completion.requests / 60)
        assert result.completion.at == reset + timedelta(hours=hours - 1)
        stages.append((result.completion, result.requests))
        rig.clock.now = reset + timedelta(seconds=1)
        result = await rig.syncer.ensure(REPO, window)
        assert len(stages) < 6
    assert result.covered_from == window.start
    assert result.notes == () and rig.clock.now <= first.at + timedelta(hours=1)
    missing = result.requests_by_stream["comments"] + result.requests_by_stream["review_comments"]
    assert abs(missing - first.requests) <= 0.2 * missing  # the pace read so far holds
