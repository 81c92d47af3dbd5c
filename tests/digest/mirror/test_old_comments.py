"""An old window's comments within budget, and its most discussed old items."""

from __future__ import annotations

from datetime import timedelta

from digest.analysis.hot import hot_discussions
from digest.builder import load_window
from digest.models import Window
from tests.fakes.github import github_time
from tests.support.sync_rig import REPO, RigFactory, today
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate


async def test_old_window_hot_discussions_match_the_mirror(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """A searched day ranks the same hot discussions as a mirrored one, old open items too."""
    rig = await rig_factory(twenty_days)
    window = today(twenty_days, 18)
    report = await rig.syncer.ensure(REPO, window)
    data = await load_window(rig.store, REPO, window, "https://github.com/" + REPO)
    hot = [
        h.item.number
        for h in hot_discussions({i.key: i for i in data.items}, data.comments, window)
    ]
    expected = twenty_days.most_discussed(window.start, window.end)
    assert set(hot) == set(expected)
    assert any(twenty_days.row(n)["created_at"] < github_time(window.start) for n in expected)
    singles = [r for r in rig.fake.requests if r.path.rsplit("/", 1)[-1].isdigit()]
    assert 0 < len(singles) <= 10 and report.notes == ()


async def test_old_comments_over_budget_are_skipped_with_a_note(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """When an old window's comments exceed the budget, counts stay exact and a note says so."""
    rig = await rig_factory(twenty_days, old_comment_pages=2)
    window = today(twenty_days, 18)
    report = await rig.syncer.ensure(REPO, window)
    assert await rig.counts(window) == twenty_days.expected_counts(window.start, window.end)
    assert len(report.notes) == 1
    assert "hot discussions may be incomplete" in report.notes[0].text("en")
    assert "热门讨论可能不完整" in report.notes[0].text("zh")
    comment_pages = [r for r in rig.fake.requests if r.path.endswith("/comments")]
    assert len(comment_pages) <= 2


async def test_old_comments_over_budget_are_not_read_again_minutes_later(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """A repeat of an old window whose comments were over budget reads no page it already has."""
    rig = await rig_factory(twenty_days, old_comment_pages=2)
    rig.clock.advance(timedelta(seconds=0.5))
    window = today(twenty_days, 18)
    mirror_from = github_time(window.end)

    async def old_pages() -> set[tuple[str, str]]:
        seen = len(rig.fake.requests)
        report = await rig.syncer.ensure(REPO, window)
        assert "hot discussions may be incomplete" in " ".join(n.text("en") for n in report.notes)
        return {
            (r.path, r.query.get("since", ""))
            for r in rig.fake.requests[seen:]
            if r.path.endswith("comments") and r.query.get("since", "") < mirror_from
        }

    first = await old_pages()
    assert first
    rig.clock.advance(timedelta(minutes=5))
    assert await old_pages() == set()
    rig.clock.advance(timedelta(minutes=30))
    assert not (await old_pages()) & first  # never a page it read before


async def test_rolling_window_reads_no_old_comment_page_again_a_minute_later(
    rig_factory: RigFactory,
) -> None:
    """A rolling window whose old comments were over budget costs only the 304s a minute on."""
    data = generate(days=6, now=DEFAULT_NOW, seed=5)
    rig = await rig_factory(data, backfill_days=3, old_comment_pages=1)
    rig.clock.advance(timedelta(seconds=0.345678))

    def rolling() -> Window:
        now = rig.clock().replace(second=0, microsecond=0)
        return Window(now - timedelta(days=5), now)

    first = await rig.syncer.ensure(REPO, rolling())
    assert "hot discussions may be incomplete" in " ".join(n.text("en") for n in first.notes)
    rig.clock.advance(timedelta(minutes=1, microseconds=250001))
    again = await rig.syncer.ensure(REPO, rolling())
    assert again.requests <= 3 and not again.used_search
    assert "hot discussions may be incomplete" in " ".join(n.text("en") for n in again.notes)


async def test_old_comment_budget_scales_with_the_limit_left(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """With a token, five old days read their 30-odd comment pages in full (no fixed 20)."""
    rig = await rig_factory(twenty_days, token="t")
    start, _ = twenty_days.day(19)
    _, end = twenty_days.day(15)
    report = await rig.syncer.ensure(REPO, Window(start, end))
    assert report.requests_by_stream["comments"] > 20
    skipped = {"sync.comments_skipped", "sync.comments_after"}
    assert not [n for n in report.notes if n.key in skipped]
