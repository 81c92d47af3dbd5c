"""The three streams into the SQLite store, against the fake GitHub over real HTTP."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from digest.analysis.hot import hot_discussions
from digest.builder import load_window
from digest.models import Window
from tests.fakes.github import comment_row, issue_row, review_comment_row
from tests.support.paths import SAMPLE
from tests.support.sync_rig import FAR, REPO, RigFactory, today
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate


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
    hot = hot_discussions({i.key: i for i in data.items}, data.comments, window)
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


async def test_a_renamed_repository_is_mirrored_under_its_new_name(
    rig_factory: RigFactory, one_day: Dataset, caplog: pytest.LogCaptureFixture
) -> None:
    """After a rename GitHub answers 301: the sync follows it, logs the move once, learns the
    new name (one look-up) and moves the mirror to it, cursors and all (no second backfill);
    the report names it, and a later sync by the old name (an alias now) sends nothing to the
    old name."""
    rig = await rig_factory(one_day, token="t")
    await rig.syncer.ensure(REPO, today(one_day))
    new_name = "vllm-project/vllm-next"
    moved = rig.fake.rename(REPO, new_name)
    later = DEFAULT_NOW + timedelta(minutes=3)
    moved.put_issue(issue_row(new_name, 60001, created=later, title="New"))
    rig.clock.advance(timedelta(minutes=5))
    window = Window(rig.clock.now - timedelta(days=1), rig.clock.now)
    with caplog.at_level("WARNING", logger="digest"):
        report = await rig.syncer.ensure(REPO, window)
    assert report.repo == new_name
    assert report.requests <= 8, report  # the mirror moved with its cursors: no new backfill
    assert await rig.store.items_by_number(REPO, [1, 60001]) == []
    [new] = await rig.store.items_by_number(new_name, [60001])
    assert new.title == "New"
    expected = one_day.expected_counts(window.start, window.end)  # and the new issue
    assert await rig.counts(window, new_name) == replace(
        expected, new_issues=expected.new_issues + 1
    )
    messages = [r.message for r in caplog.records]
    assert messages.count("github.redirected") == 1 and messages.count("sync.repo_renamed") == 1
    assert {r.status for r in rig.fake.requests} <= {200, 301, 304}
    rig.fake.requests.clear()
    rig.clock.advance(timedelta(minutes=5))
    assert (await rig.syncer.ensure(REPO, window)).repo == new_name
    assert rig.fake.requests and all(f"/{REPO}/" not in r.path for r in rig.fake.requests)
