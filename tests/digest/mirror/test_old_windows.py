"""Windows older than the mirror through the Search API, and the reuse of what was searched."""

from __future__ import annotations

from datetime import timedelta

from digest.models import Window
from tests.support.sync_rig import REPO, RigFactory, today
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate


async def test_old_window_uses_search_and_its_comments(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """A day older than the backfill cap comes from the Search API, comments included."""
    rig = await rig_factory(twenty_days)
    window = today(twenty_days, 18)
    report = await rig.syncer.ensure(REPO, window)
    assert report.used_search and report.notes == ()
    assert await rig.counts(window) == twenty_days.expected_counts(window.start, window.end)
    assert await rig.human_comments(window) == twenty_days.human_comment_counts(
        window.start, window.end
    )
    searches = [r for r in rig.fake.requests if r.path == "/search/issues"]
    assert {r.query["q"].split()[1] for r in searches} == {"is:issue", "is:pr"}
    assert (await rig.store.get_sync_state(REPO)).covered_since is None
    again = await rig.syncer.ensure(REPO, window)
    assert again.requests == 0


async def test_rolling_window_past_the_cap_reuses_its_search(rig_factory: RigFactory) -> None:
    """A window ending now that reaches past the cap searches once; minutes later it reuses it."""
    data = generate(days=6, now=DEFAULT_NOW, seed=5)
    rig = await rig_factory(data, backfill_days=3)
    first = await rig.syncer.ensure(REPO, Window(data.now - timedelta(days=5), data.now))
    assert first.used_search
    rig.clock.advance(timedelta(minutes=3))
    now = rig.clock()
    again = await rig.syncer.ensure(REPO, Window(now - timedelta(days=5), now))
    assert not again.used_search
    assert again.requests <= 2


async def test_rolling_long_window_repeats_free_with_a_clock_that_has_microseconds(
    rig_factory: RigFactory,
) -> None:
    """With a real clock's microseconds, a repeat of a window past the cap searches nothing."""
    data = generate(days=6, now=DEFAULT_NOW, seed=5)
    rig = await rig_factory(data, backfill_days=3)
    rig.clock.advance(timedelta(seconds=0.345678))

    def rolling() -> Window:
        now = rig.clock().replace(second=0, microsecond=0)
        return Window(now - timedelta(days=5), now)

    assert (await rig.syncer.ensure(REPO, rolling())).used_search
    for wait in (timedelta(minutes=1, microseconds=250001), timedelta(hours=1)):
        rig.clock.advance(wait)
        again = await rig.syncer.ensure(REPO, rolling())
        assert not again.used_search
        assert again.requests <= 3  # items, comments and review comments: 304s
