"""What a sync reads for a window, and what it says when the limit stops it, over real HTTP."""

from __future__ import annotations

from datetime import timedelta

import pytest

from digest.backends.sqlite.state import SQLiteState
from digest.errors import NotFound, RateLimited
from digest.mirror.gate import SyncGate
from digest.models import Window
from tests.support.sync_rig import REPO, RigFactory, today
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate


async def test_rate_limit_mid_sync_reports_the_gap_and_the_next_sync_resumes(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """An exhausted limit mid-sync is reported with the reset time; the next sync resumes."""
    clean = await rig_factory(one_day)
    rig = await rig_factory(one_day)
    rig.fake.exhaust_from = 3
    stopped = await rig.syncer.ensure(REPO, today(one_day))
    assert stopped.notes[-1].text("en") == "GitHub's limit resets at 2026-03-11 04:21 UTC"
    state = await rig.store.get_sync_state(REPO)
    assert state.items_cursor is not None and state.synced_at is None
    rig.fake.exhaust_from = None
    rig.clock.advance(timedelta(hours=1, seconds=1))
    first = await clean.syncer.ensure(REPO, today(one_day))
    resumed = await rig.syncer.ensure(REPO, Window(*one_day.day(0)))
    assert resumed.requests < first.requests
    assert await rig.snapshot() == await clean.snapshot()


async def test_limit_spent_before_anything_is_stored_raises(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """With the limit spent from the first request, the sync raises with the reset time."""
    rig = await rig_factory(one_day)
    rig.fake.exhaust_from = 1
    with pytest.raises(RateLimited) as info:
        await rig.syncer.ensure(REPO, today(one_day))
    assert info.value.reset_at == DEFAULT_NOW + timedelta(hours=1)


async def test_unknown_repository_is_not_found(rig_factory: RigFactory, one_day: Dataset) -> None:
    """Syncing a repository GitHub does not know raises NotFound and records nothing."""
    rig = await rig_factory(one_day)
    with pytest.raises(NotFound):
        await rig.syncer.ensure("vllm-project/nope", today(one_day))
    assert (await rig.store.get_sync_state("vllm-project/nope")).covered_since is None


async def test_longer_window_extends_the_mirror_back(rig_factory: RigFactory) -> None:
    """A window reaching before the mirror (within the cap) backfills it from that start."""
    data = generate(days=3, now=DEFAULT_NOW, seed=3)
    rig = await rig_factory(data)
    await rig.syncer.ensure(REPO, today(data))
    three = Window(data.start, data.now)
    report = await rig.syncer.ensure(REPO, three)
    assert not report.used_search
    assert (await rig.store.get_sync_state(REPO)).covered_since == data.start
    for k in range(3):
        window = today(data, k)
        assert await rig.counts(window) == data.expected_counts(window.start, window.end)


async def test_window_across_the_cap_mirrors_and_searches(rig_factory: RigFactory) -> None:
    """A window starting before the backfill cap mirrors up to the cap and searches the rest."""
    data = generate(days=6, now=DEFAULT_NOW, seed=5)
    rig = await rig_factory(data, backfill_days=3)
    window = Window(data.now - timedelta(days=5), data.now)
    report = await rig.syncer.ensure(REPO, window)
    assert report.used_search and report.notes == ()
    assert report.covered_from == window.start
    state = await rig.store.get_sync_state(REPO)
    assert state.covered_since == data.now - timedelta(days=3)
    for k in range(5):
        day = today(data, k)
        assert await rig.counts(day) == data.expected_counts(day.start, day.end)
        assert await rig.human_comments(day) == data.human_comment_counts(day.start, day.end)
    assert await rig.counts(window) == data.expected_counts(window.start, window.end)


async def test_window_older_than_the_mirror_is_searched(rig_factory: RigFactory) -> None:
    """A day wholly older than an existing mirror is searched; the mirror is not refetched."""
    data = generate(days=6, now=DEFAULT_NOW, seed=6)
    rig = await rig_factory(data)
    await rig.syncer.ensure(REPO, today(data))
    old = today(data, 4)
    report = await rig.syncer.ensure(REPO, old)
    assert report.used_search and report.notes == ()
    assert report.covered_from == data.day(0)[0]
    assert report.requests <= 16
    assert (await rig.store.get_sync_state(REPO)).covered_since == data.day(0)[0]
    assert await rig.counts(old) == data.expected_counts(old.start, old.end)
    assert await rig.human_comments(old) == data.human_comment_counts(old.start, old.end)
    rig.clock.advance(timedelta(minutes=30))
    again = await rig.syncer.ensure(REPO, old)
    assert again.requests == 2 and not again.used_search


async def test_backfill_stopped_by_the_limit_says_what_is_missing_and_resumes(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """A token-less backfill that runs out of requests keeps what it stored, marks no
    coverage, says which streams are missing and when the limit resets, then resumes."""
    rig = await rig_factory(one_day)
    window = today(one_day)
    rig.fake.exhaust_from = 5  # four requests, then the hourly limit is spent
    stopped = await rig.syncer.ensure(REPO, window)
    assert stopped.covered_from is None
    assert (await rig.store.get_sync_state(REPO)).covered_since is None
    comments, reviews, resets = (note.text("en") for note in stopped.notes)
    assert comments.startswith("comments after 2026-03-10 ") and comments.endswith("not synced yet")
    assert reviews == "review comments after 2026-03-10 03:21 UTC not synced yet"
    assert resets == "GitHub's limit resets at 2026-03-11 04:21 UTC"
    assert [note.text("zh") for note in stopped.notes][1:] == [
        "代码审查评论：2026-03-10 03:21 UTC 之后的尚未同步",
        "GitHub 的速率限制于 2026-03-11 04:21 UTC 重置",
    ]
    rig.fake.exhaust_from = None
    rig.clock.advance(timedelta(hours=1, minutes=1))
    resumed = await rig.syncer.ensure(REPO, window)
    assert resumed.notes == () and resumed.covered_from == window.start
    assert resumed.requests_by_stream.get("issues", 0) <= 2  # resumed, not restarted
    assert await rig.counts(window) == one_day.expected_counts(window.start, window.end)
    assert await rig.human_comments(window) == one_day.human_comment_counts(
        window.start, window.end
    )


async def test_next_old_day_through_the_gate_is_searched_too(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """Two old days asked within a minute through the sync gate each get their own search."""
    rig = await rig_factory(twenty_days)
    state = SQLiteState(":memory:", clock=rig.clock)
    gate = SyncGate(rig.syncer, state, rig.clock)
    try:
        first = await gate.ensure(REPO, today(twenty_days, 18))
        day = today(twenty_days, 17)
        await gate.ensure(REPO, day)
    finally:
        await state.close()
    assert first.covered_from is None
    assert await rig.counts(day) == twenty_days.expected_counts(day.start, day.end)
