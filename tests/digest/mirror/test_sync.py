"""Incremental sync into the SQLite store, against the fake GitHub over real HTTP."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from digest.analysis.hot import hot_discussions
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import load_window
from digest.errors import NotFound, RateLimited
from digest.github.client import GitHubClient
from digest.mirror.gate import SyncGate
from digest.mirror.sync import Syncer
from digest.models import Comment, Counts, Item, Window
from tests.fakes.github import (
    FakeGitHub,
    RecordingSleep,
    comment_row,
    github_time,
    issue_row,
    review_comment_row,
)
from tests.support.clock import Clock
from tests.support.paths import SAMPLE
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate

REPO = "vllm-project/vllm"
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
FAR = datetime(2100, 1, 1, tzinfo=UTC)


@dataclass
class Rig:
    """A fake GitHub with a dataset, a client on it, a fresh store and a syncer."""

    fake: FakeGitHub
    client: GitHubClient
    store: SQLiteStore
    syncer: Syncer
    clock: Clock
    sleep: RecordingSleep

    async def counts(self, window: Window) -> Counts:
        """The five counts of ``window`` as the mirror answers them."""
        created = await self.store.items_created(REPO, window.start, window.end)
        closed = await self.store.items_closed(REPO, window.start, window.end)
        merged = await self.store.items_merged(REPO, window.start, window.end)
        return Counts(
            new_issues=sum(not i.is_pr for i in created),
            closed_issues=sum(not i.is_pr for i in closed),
            new_prs=sum(i.is_pr for i in created),
            merged_prs=sum(i.is_pr for i in merged),
            closed_unmerged_prs=sum(i.is_pr and i.merged_at is None for i in closed),
        )

    async def human_comments(self, window: Window) -> dict[int, int]:
        counts: dict[int, int] = {}
        for c in await self.store.comments_created(REPO, window.start, window.end):
            if not c.author_is_bot:
                counts[c.item_number] = counts.get(c.item_number, 0) + 1
        return counts

    async def snapshot(self) -> tuple[list[Item], list[Comment]]:
        """Everything mirrored, in a stable order."""
        items = await self.store.items_updated(REPO, EPOCH, FAR)
        comments = await self.store.comments_created(REPO, EPOCH, FAR)
        return sorted(items, key=lambda i: i.number), sorted(comments, key=lambda c: c.id)


RigFactory = Callable[..., Awaitable[Rig]]


@pytest.fixture
async def rig_factory() -> AsyncIterator[RigFactory]:
    """Builds rigs (several per test if needed) and closes them all afterwards."""
    opened: list[tuple[FakeGitHub, httpx.AsyncClient, SQLiteStore]] = []

    async def build(data: Dataset, *, token: str | None = None, **syncer_options: Any) -> Rig:
        clock = Clock(data.now)
        sleep = RecordingSleep(clock)
        fake = FakeGitHub(clock=clock)
        await fake.start()
        fake.add_repo(
            REPO,
            issues=data.issues,
            comments=data.comments,
            review_comments=data.review_comments,
        )
        http = httpx.AsyncClient(base_url=fake.url, timeout=5.0)
        store = SQLiteStore(":memory:")
        opened.append((fake, http, store))
        client = GitHubClient(http, token=token, sleep=sleep, clock=clock, jitter=lambda: 0.5)
        syncer = Syncer(client, store, clock=clock, **syncer_options)
        return Rig(fake, client, store, syncer, clock, sleep)

    yield build
    for fake, http, store in opened:
        await store.close()
        await http.aclose()
        await fake.close()


@pytest.fixture(scope="module")
def one_day() -> Dataset:
    """One synthetic vLLM day ending at DEFAULT_NOW."""
    return generate(days=1, now=DEFAULT_NOW, seed=1)


@pytest.fixture(scope="module")
def twenty_days() -> Dataset:
    """Twenty synthetic vLLM days: older than the 14-day backfill cap."""
    return generate(days=20, now=DEFAULT_NOW, seed=2)


@pytest.fixture(scope="module")
def reviewed_day() -> Dataset:
    """One synthetic vLLM day where half the human discussion on PRs is inline review."""
    return generate(days=1, now=DEFAULT_NOW, seed=1, review_share=0.5)


def today(data: Dataset, k: int = 0) -> Window:
    return Window(*data.day(k))


async def test_first_day_from_empty_store_stays_within_budget(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """A one-day sync from an empty store needs ceil(items/100)+ceil(comments/100)+3 at most."""
    rig = await rig_factory(one_day)
    window = today(one_day)
    report = await rig.syncer.ensure(REPO, window)
    items, comments = one_day.rows_updated_since(window.start)
    assert report.requests <= math.ceil(items / 100) + math.ceil(comments / 100) + 3
    assert (report.items, report.comments) == (items, comments)
    assert not report.used_search and report.notes == ()
    assert report.synced_at == DEFAULT_NOW and report.covered_from == window.start
    assert await rig.counts(window) == one_day.expected_counts(window.start, window.end)
    assert await rig.human_comments(window) == one_day.human_comment_counts(
        window.start, window.end
    )


async def test_repeat_a_minute_later_is_two_free_304s(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """The same sync a minute later makes 2 requests, both 304s that spend no rate limit."""
    rig = await rig_factory(one_day)
    await rig.syncer.ensure(REPO, today(one_day))
    remaining = rig.client.remaining()
    for _ in range(2):
        rig.clock.advance(60)
        repeat = await rig.syncer.ensure(REPO, today(one_day))
        assert repeat.requests == 2 and (repeat.items, repeat.comments) == (0, 0)
        assert [r.status for r in rig.fake.requests[-2:]] == [304, 304]
    assert rig.client.remaining() == remaining
    state = await rig.store.get_sync_state(REPO)
    assert state.synced_at == rig.clock.now


async def test_incremental_sync_picks_up_changes(rig_factory: RigFactory, one_day: Dataset) -> None:
    """An item closed and a comment posted after the first sync reach the mirror."""
    rig = await rig_factory(one_day)
    await rig.syncer.ensure(REPO, today(one_day))
    repo = rig.fake.repo(REPO)
    number = next(
        r["number"] for r in one_day.issues if r["state"] == "open" and "pull_request" not in r
    )
    later = DEFAULT_NOW + timedelta(minutes=3)
    stamp = later.strftime("%Y-%m-%dT%H:%M:%SZ")
    row = dict(repo.issues[number])
    row.update(state="closed", state_reason="completed", closed_at=stamp, updated_at=stamp)
    repo.put_issue(row)
    repo.put_comment(comment_row(REPO, 4_000_000_000, number, created=later, login="carol"))
    rig.clock.advance(timedelta(minutes=5))
    window = Window(rig.clock.now - timedelta(days=1), rig.clock.now)
    report = await rig.syncer.ensure(REPO, window)
    assert report.requests == 2 and report.items >= 1 and report.comments >= 1
    [item] = await rig.store.items_by_number(REPO, [number])
    assert item.closed_at == later and item.state.value == "closed"
    posted = await rig.store.comments_created(REPO, later, later + timedelta(seconds=1))
    assert [c.author for c in posted] == ["carol"]
    expected = one_day.expected_counts(window.start, window.end)
    counts = await rig.counts(window)
    assert counts.closed_issues == expected.closed_issues + 1
    rig.clock.advance(60)
    quiet = await rig.syncer.ensure(REPO, window)
    assert [r.status for r in rig.fake.requests[-quiet.requests :]] == [304, 304]


async def test_review_day_from_empty_store_stays_within_budget(
    rig_factory: RigFactory, reviewed_day: Dataset
) -> None:
    """A cold day with review threads costs one page per 100 rows of each stream, plus 3."""
    rig = await rig_factory(reviewed_day)
    window = today(reviewed_day)
    report = await rig.syncer.ensure(REPO, window)
    items, comments = reviewed_day.rows_updated_since(window.start)
    reviews = reviewed_day.review_rows_updated_since(window.start)
    assert reviews > 50
    budget = math.ceil(items / 100) + math.ceil(comments / 100) + math.ceil(reviews / 100) + 3
    assert report.requests <= budget
    assert (report.items, report.comments, report.review_comments) == (items, comments, reviews)
    assert report.requests_by_stream["review_comments"] == math.ceil(reviews / 100)
    assert await rig.human_comments(window) == reviewed_day.human_comment_counts(
        window.start, window.end
    )


async def test_review_threads_count_in_hot_discussions(
    rig_factory: RigFactory, reviewed_day: Dataset
) -> None:
    """Hot discussions and their participants include the reviewers of inline threads."""
    rig = await rig_factory(reviewed_day)
    window = today(reviewed_day)
    await rig.syncer.ensure(REPO, window)
    data = await load_window(rig.store, REPO, window, "https://github.com/" + REPO)
    hot = hot_discussions({i.number: i for i in data.items}, data.comments, window)
    assert [h.item.number for h in hot] == reviewed_day.most_discussed(window.start, window.end)
    people = reviewed_day.participants(window.start, window.end)
    assert all(set(h.participants) == people[h.item.number] for h in hot)
    assert any(c.is_review and c.path for h in hot for c in h.comments)


async def test_review_day_repeat_costs_two_requests(
    rig_factory: RigFactory, reviewed_day: Dataset
) -> None:
    """A minute later, an unchanged repository costs two 304s: no PR moved, no review read."""
    rig = await rig_factory(reviewed_day)
    await rig.syncer.ensure(REPO, today(reviewed_day))
    rig.clock.advance(60)
    repeat = await rig.syncer.ensure(REPO, today(reviewed_day))
    assert repeat.requests == 2
    assert [r.status for r in rig.fake.requests[-2:]] == [304, 304]


async def test_new_review_comment_reaches_the_mirror(
    rig_factory: RigFactory, reviewed_day: Dataset
) -> None:
    """A review comment posted after a sync, by a since-deleted account, is mirrored next time."""
    rig = await rig_factory(reviewed_day)
    await rig.syncer.ensure(REPO, today(reviewed_day))
    number = next(r["number"] for r in reviewed_day.issues if "pull_request" in r)
    later = DEFAULT_NOW + timedelta(minutes=3)
    rig.fake.repo(REPO).put_review_comment(
        review_comment_row(REPO, 1, number, created=later, login=None, in_reply_to=7)
    )
    rig.clock.advance(timedelta(minutes=5))
    window = Window(rig.clock.now - timedelta(days=1), rig.clock.now)
    report = await rig.syncer.ensure(REPO, window)
    assert report.requests_by_stream == {"issues": 1, "comments": 1, "review_comments": 1}
    [posted] = await rig.store.comments_created(REPO, later, later + timedelta(seconds=1))
    assert (posted.item_number, posted.author, posted.author_is_bot) == (number, "ghost", True)
    assert (posted.path, posted.in_reply_to_id) == (
        "vllm/model_executor/layers/fused_moe/layer.py",
        7,
    )


async def test_update_during_paging_skips_no_row(rig_factory: RigFactory, one_day: Dataset) -> None:
    """An item updated while later pages are read shifts no unseen row out of reach."""
    rig = await rig_factory(one_day)
    repo = rig.fake.repo(REPO)
    window = today(one_day)
    stream = sorted(
        (r for r in one_day.issues if r["updated_at"] >= "2026-03-10T03:21:00Z"),
        key=lambda r: (r["updated_at"], r["number"]),
    )
    moved = dict(stream[0])
    moved["updated_at"] = "2026-03-11T03:25:00Z"

    def touch(request: object) -> None:
        if len(rig.fake.requests) == 2:
            repo.put_issue(moved)

    rig.fake.before_request = touch
    await rig.syncer.ensure(REPO, window)
    stored = await rig.store.items_updated(REPO, window.start, FAR)
    assert {i.number for i in stored} == {r["number"] for r in stream}
    assert await rig.counts(window) == one_day.expected_counts(window.start, window.end)


async def test_502_every_fifth_request_changes_nothing(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """A 502 on every fifth request leaves exactly the same mirror as a clean run."""
    clean = await rig_factory(one_day)
    faulty = await rig_factory(one_day)
    faulty.fake.fail_every = 5
    await clean.syncer.ensure(REPO, today(one_day))
    report = await faulty.syncer.ensure(REPO, today(one_day))
    assert await faulty.snapshot() == await clean.snapshot()
    assert 502 in [r.status for r in faulty.fake.requests]
    assert report.requests == len(faulty.fake.requests)


async def test_secondary_limit_mid_sync_is_waited_out(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """A secondary rate limit in the middle of a sync waits Retry-After and changes nothing."""
    clean = await rig_factory(one_day)
    limited = await rig_factory(one_day)
    limited.fake.secondary_at = {4}
    limited.fake.retry_after = 7
    await clean.syncer.ensure(REPO, today(one_day))
    await limited.syncer.ensure(REPO, today(one_day))
    assert limited.sleep.delays == [7.0]
    assert await limited.snapshot() == await clean.snapshot()


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
        for h in hot_discussions({i.number: i for i in data.items}, data.comments, window)
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


async def test_real_sample_rows_mirror_faithfully(rig_factory: RigFactory) -> None:
    """The real vLLM sample (issue rows with ``pull_request: null``) mirrors with exact kinds."""
    sample = json.loads(SAMPLE.read_text())
    start = datetime.fromisoformat(sample["window"]["start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(sample["window"]["end"].replace("Z", "+00:00"))
    data = generate(days=1, now=datetime(2026, 2, 7, tzinfo=UTC))
    rig = await rig_factory(data)
    rig.fake.add_repo(REPO, issues=sample["issues"], comments=sample["comments"])
    report = await rig.syncer.ensure(REPO, Window(start, end))
    assert (report.items, report.comments) == (len(sample["issues"]), len(sample["comments"]))
    stored = {i.number: i for i in await rig.store.items_updated(REPO, start, FAR)}
    for row in sample["issues"]:
        item = stored[row["number"]]
        assert item.is_pr == (row["pull_request"] is not None)
        assert item.is_merged == bool(row["pull_request"] and row["pull_request"]["merged_at"])
    posted = await rig.store.comments_created(REPO, start, FAR)
    assert {c.item_number for c in posted} == {c["issue_number"] for c in sample["comments"]}


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


async def test_renamed_repository_keeps_its_mirror(
    rig_factory: RigFactory, one_day: Dataset, caplog: pytest.LogCaptureFixture
) -> None:
    """After a rename GitHub answers 301: the sync follows it, logs the move once, and the
    mirror under the old name keeps growing."""
    rig = await rig_factory(one_day)
    await rig.syncer.ensure(REPO, today(one_day))
    moved = rig.fake.rename(REPO, "vllm-project/vllm-next")
    later = DEFAULT_NOW + timedelta(minutes=3)
    moved.put_issue(issue_row("vllm-project/vllm-next", 60001, created=later, title="New"))
    rig.clock.advance(timedelta(minutes=5))
    with caplog.at_level("WARNING", logger="digest.github.client"):
        await rig.syncer.ensure(REPO, Window(rig.clock.now - timedelta(days=1), rig.clock.now))
    [new] = await rig.store.items_by_number(REPO, [60001])
    assert new.title == "New"
    assert [r.message for r in caplog.records].count("github.redirected") == 1
    assert {r.status for r in rig.fake.requests[-6:]} <= {200, 301, 304}


async def test_reconciliation_removes_deleted_and_transferred_items(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """A deleted issue (410) and a transferred one (301 elsewhere) leave the mirror; a live
    issue stays, and the budget caps the requests."""
    rig = await rig_factory(one_day)
    await rig.syncer.ensure(REPO, today(one_day))
    recent = sorted(
        i.number
        for i in await rig.store.items_updated(REPO, rig.clock.now - timedelta(days=7), FAR)
    )
    deleted, transferred, kept = recent[:3]
    repo = rig.fake.repo(REPO)
    repo.delete(deleted)
    other = rig.fake.add_repo("vllm-project/guidellm")
    other.put_issue(issue_row("vllm-project/guidellm", 7, created=DEFAULT_NOW))
    repo.transfer(transferred, "vllm-project/guidellm", 7)
    before = rig.client.requests_made
    gone = await rig.syncer.reconcile(REPO, budget=3)
    assert sorted(gone) == [deleted, transferred]
    assert [i.number for i in await rig.store.items_by_number(REPO, recent[:3])] == [kept]
    assert rig.client.requests_made - before == 3 + 2  # + the 301, + one look-up of the name
    nxt = await rig.syncer.reconcile(REPO, budget=2)
    assert nxt == [] and rig.fake.requests[-1].path.endswith(f"/issues/{recent[4]}")


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
    assert resumed.requests_by_stream["issues"] <= 2  # resumed from the cursor, not restarted
    assert await rig.counts(window) == one_day.expected_counts(window.start, window.end)
    assert await rig.human_comments(window) == one_day.human_comment_counts(
        window.start, window.end
    )


async def test_old_comment_budget_scales_with_the_limit_left(
    rig_factory: RigFactory, twenty_days: Dataset
) -> None:
    """With a token, five old days read their 30-odd comment pages in full (no fixed 20)."""
    rig = await rig_factory(twenty_days, token="t")
    start, _ = twenty_days.day(19)
    _, end = twenty_days.day(15)
    report = await rig.syncer.ensure(REPO, Window(start, end))
    assert report.requests_by_stream["comments"] > 20
    assert not [n for n in report.notes if n.startswith("comments of")]


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
    assert abs(again.completion.requests - done.requests) <= max(2, done.requests // 4)
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
