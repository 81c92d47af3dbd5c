"""The store contract: every implementation passes these tests unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from digest.mirror.store import Store, SyncState
from digest.models import CommentKind, ItemKind, ItemState
from tests.support.store_samples import REPO, T0, at, comment, item, review_comment

OTHER = "octo/other"


async def test_empty_store_queries(store: Store) -> None:
    """A new store has no items, no comments and a blank sync state."""
    assert await store.items_created(REPO, at(-1), at(1)) == []
    assert await store.comments_created(REPO, at(-1), at(1)) == []
    assert await store.items_by_number(REPO, [1, 2]) == []
    assert await store.get_sync_state(REPO) == SyncState()


async def test_item_round_trips_every_field(store: Store) -> None:
    """An upserted item comes back equal, with aware UTC datetimes."""
    merged = item(
        7,
        kind=ItemKind.PR,
        state=ItemState.CLOSED,
        state_reason="completed",
        closed_at=at(2),
        merged_at=at(2),
        updated_at=at(2.5),
        labels=(),
        draft=True,
        fixes=(3, 12),
    )
    await store.upsert_items([merged])
    [got] = await store.items_by_number(REPO, [7])
    assert got == merged
    assert got.created_at.utcoffset() == timedelta(0)


async def test_non_utc_input_comes_back_in_utc(store: Store) -> None:
    """A moment given in another zone is stored as the same instant and returned in UTC."""
    shanghai = timezone(timedelta(hours=8))
    await store.upsert_items([item(1, created_at=T0.astimezone(shanghai))])
    [got] = await store.items_created(REPO, T0, at(1))
    assert got.created_at == T0
    assert got.created_at.tzinfo is not None and got.created_at.utcoffset() == timedelta(0)
    assert got.created_at.tzinfo == UTC


async def test_upsert_is_idempotent(store: Store) -> None:
    """Upserting the same rows twice keeps one copy of each."""
    await store.upsert_items([item(1), item(2)])
    await store.upsert_items([item(1), item(2)])
    await store.upsert_comments([comment(10), comment(11)])
    await store.upsert_comments([comment(10), comment(11)])
    assert [i.number for i in await store.items_created(REPO, T0, at(1))] == [1, 2]
    assert [c.id for c in await store.comments_created(REPO, T0, at(1))] == [10, 11]


async def test_upsert_replaces_state_and_reopen_clears_closed(store: Store) -> None:
    """The last upsert wins: a reopened item is no longer in the closed window."""
    await store.upsert_items([item(1, state=ItemState.CLOSED, closed_at=at(1), updated_at=at(1))])
    assert [i.number for i in await store.items_closed(REPO, T0, at(2))] == [1]
    reopened = item(1, title="renamed", updated_at=at(1.5))
    await store.upsert_items([reopened])
    assert await store.items_closed(REPO, T0, at(2)) == []
    assert await store.items_updated(REPO, at(1), at(2)) == [reopened]
    assert await store.items_by_number(REPO, [1]) == [reopened]


async def test_comment_upsert_replaces_body(store: Store) -> None:
    """An edited comment replaces the earlier version."""
    await store.upsert_comments([comment(10)])
    edited = comment(10, body_excerpt="edited", updated_at=at(3))
    await store.upsert_comments([edited])
    assert await store.comments_created(REPO, T0, at(1)) == [edited]


async def test_item_windows_are_half_open(store: Store) -> None:
    """Each item query includes its start and excludes its end."""
    start, end = at(0), at(24)
    before, first, last, after = at(-0.001), start, end - timedelta(microseconds=1), end
    for column, query in (
        ("created_at", store.items_created),
        ("closed_at", store.items_closed),
        ("merged_at", store.items_merged),
        ("updated_at", store.items_updated),
    ):
        rows = [
            item(n, **{column: moment, "created_at": moment if column == "created_at" else at(-48)})
            for n, moment in ((1, before), (2, first), (3, last), (4, after))
        ]
        await store.upsert_items(rows)
        got = await query(REPO, start, end)
        assert [i.number for i in got] == [2, 3], column


async def test_comment_window_is_half_open(store: Store) -> None:
    """Comments created exactly at the end are excluded, exactly at the start included."""
    await store.upsert_comments(
        [comment(1, created_at=at(-1)), comment(2, created_at=at(0)), comment(3, created_at=at(24))]
    )
    assert [c.id for c in await store.comments_created(REPO, at(0), at(24))] == [2]


async def test_window_results_are_in_time_order(store: Store) -> None:
    """Window queries list rows oldest first, whatever the insertion order."""
    await store.upsert_items([item(5, created_at=at(3)), item(9, created_at=at(1)), item(2)])
    await store.upsert_comments([comment(3, created_at=at(2)), comment(8, created_at=at(1))])
    assert [i.number for i in await store.items_created(REPO, T0, at(4))] == [2, 9, 5]
    assert [c.id for c in await store.comments_created(REPO, T0, at(4))] == [8, 3]


async def test_merged_query_ignores_unmerged_closed(store: Store) -> None:
    """Closing without merging puts a PR in the closed query only."""
    pr = item(4, kind=ItemKind.PR, state=ItemState.CLOSED, closed_at=at(1))
    await store.upsert_items([pr])
    assert await store.items_merged(REPO, T0, at(2)) == []
    assert await store.items_closed(REPO, T0, at(2)) == [pr]


async def test_repositories_are_isolated(store: Store) -> None:
    """Rows and sync state of one repository never show up in another."""
    await store.upsert_items([item(1), item(1, repo=OTHER, title="other")])
    await store.upsert_comments([comment(1), comment(1, repo=OTHER, body_excerpt="other")])
    await store.set_sync_state(OTHER, SyncState(synced_at=at(1)))
    [mine] = await store.items_created(REPO, T0, at(1))
    [theirs] = await store.items_by_number(OTHER, [1])
    assert (mine.title, theirs.title) == (item(1).title, "other")
    assert [c.body_excerpt for c in await store.comments_created(OTHER, T0, at(1))] == ["other"]
    assert await store.get_sync_state(REPO) == SyncState()


async def test_items_by_number_keeps_order_and_skips_unknown(store: Store) -> None:
    """Items come back in the order asked, once each, unknown numbers omitted."""
    await store.upsert_items([item(n) for n in (1, 2, 3)])
    got = await store.items_by_number(REPO, [3, 99, 1, 3])
    assert [i.number for i in got] == [3, 1]
    assert await store.items_by_number(REPO, []) == []


async def test_items_by_number_many(store: Store) -> None:
    """A long list of numbers is answered in full."""
    await store.upsert_items([item(n) for n in range(1, 1201)])
    got = await store.items_by_number(REPO, list(range(1200, 0, -1)))
    assert [i.number for i in got] == list(range(1200, 0, -1))


async def test_sync_state_round_trips(store: Store) -> None:
    """Cursors, coverage, sync time and ETags come back as stored; a later set replaces."""
    state = SyncState(
        items_cursor=at(5),
        comments_cursor=at(4),
        covered_since=at(-24 * 14),
        synced_at=datetime(2026, 3, 10, 11, 21, 7, 123456, tzinfo=timezone(timedelta(hours=8))),
        etags={"issues": 'W/"abc"', "comments": '"def"'},
        review_comments_cursor=at(3),
        review_comments_checked=at(5.5),
    )
    await store.set_sync_state(REPO, state)
    got = await store.get_sync_state(REPO)
    assert got == state
    assert got.synced_at is not None and got.synced_at.tzinfo == UTC
    await store.set_sync_state(REPO, SyncState(items_cursor=at(6)))
    assert await store.get_sync_state(REPO) == SyncState(items_cursor=at(6))


async def test_review_comments_are_stored_beside_conversation_comments(store: Store) -> None:
    """A review comment comes back with its kind, file path and reply link, among the others."""
    reply = review_comment(10, created_at=at(0.5), in_reply_to_id=9, author="carol")
    await store.upsert_comments([comment(10), review_comment(9), reply])
    got = await store.comments_created(REPO, T0, at(1))
    assert [(c.kind, c.id) for c in got] == [
        (CommentKind.REVIEW, 9),
        (CommentKind.CONVERSATION, 10),
        (CommentKind.REVIEW, 10),
    ]
    assert got[2] == reply and got[2].path == "vllm/attention/backends/rocm.py"


async def test_review_comment_ids_do_not_collide_with_conversation_ids(store: Store) -> None:
    """The same id in both kinds keeps two comments, and an edit replaces only its own kind."""
    await store.upsert_comments([comment(7), review_comment(7)])
    edited = review_comment(7, body_excerpt="nit: rename", updated_at=at(2))
    await store.upsert_comments([edited])
    got = await store.comments_created(REPO, T0, at(1))
    assert sorted((c.kind.value, c.body_excerpt) for c in got) == [
        ("conversation", comment(7).body_excerpt),
        ("review", "nit: rename"),
    ]


async def test_review_comment_window_is_half_open(store: Store) -> None:
    """Review comments created exactly at the end are excluded, at the start included."""
    await store.upsert_comments(
        [review_comment(n, created_at=at(h)) for n, h in ((1, -1), (2, 0), (3, 24))]
    )
    assert [c.id for c in await store.comments_created(REPO, at(0), at(24))] == [2]


async def test_deleted_items_leave_with_their_comments(store: Store) -> None:
    """A deleted item and its conversation and review comments are gone; others stay."""
    await store.upsert_items([item(1), item(2)])
    await store.upsert_comments([comment(10), comment(11, item_number=2), review_comment(12)])
    await store.delete_items(REPO, [1, 99])
    assert [i.number for i in await store.items_created(REPO, T0, at(1))] == [2]
    assert await store.items_by_number(REPO, [1]) == []
    assert [c.id for c in await store.comments_created(REPO, T0, at(1))] == [11]


async def test_a_whole_repository_is_listed_and_dropped(store: Store) -> None:
    """``mirrored_repos`` names every repository held; ``drop_repo`` removes one repository's
    items, comments, review comments and sync state, and nothing of another."""
    from digest.mirror.pruning import Prunable

    assert isinstance(store, Prunable)
    assert await store.mirrored_repos() == []
    for repo in (REPO, OTHER):
        await store.upsert_items([item(1, repo), item(2, repo, closed_at=at(1))])
        await store.upsert_comments([comment(10, repo), review_comment(20, repo)])
        await store.set_sync_state(repo, SyncState(synced_at=at(3)))
    assert await store.mirrored_repos() == sorted([REPO, OTHER])
    await store.drop_repo(OTHER)
    assert await store.mirrored_repos() == [REPO]
    assert await store.items_by_number(OTHER, [1, 2]) == []
    assert await store.items_closed(OTHER, at(-1), at(5)) == []
    assert await store.comments_created(OTHER, at(-10), at(10)) == []
    assert await store.get_sync_state(OTHER) == SyncState()
    assert len(await store.items_by_number(REPO, [1, 2])) == 2
    assert len(await store.comments_created(REPO, at(-10), at(10))) == 2
    assert (await store.get_sync_state(REPO)).synced_at == at(3)


async def test_a_renamed_repository_s_mirror_moves_to_its_new_name(store: Store) -> None:
    """``rename_repo`` moves a repository's items, comments, review comments and sync state
    (cursors included) to its new name, leaves another repository alone, and moves nothing
    onto a name that has a mirror already."""
    from digest.mirror.renames import Movable

    assert isinstance(store, Movable)
    new = "vllm-project/vllm-next"
    await store.upsert_items([item(1), item(2, closed_at=at(1)), item(1, OTHER)])
    await store.upsert_comments([comment(10), review_comment(20)])
    await store.set_sync_state(REPO, SyncState(items_cursor=at(2), synced_at=at(3)))
    assert await store.rename_repo(REPO, new)
    assert [i.number for i in await store.items_closed(new, at(-1), at(5))] == [2]
    assert [i.repo for i in await store.items_by_number(new, [1, 2])] == [new, new]
    assert sorted(c.id for c in await store.comments_created(new, at(-10), at(10))) == [10, 20]
    assert await store.get_sync_state(new) == SyncState(items_cursor=at(2), synced_at=at(3))
    assert await store.items_by_number(REPO, [1, 2]) == []
    assert await store.get_sync_state(REPO) == SyncState()
    assert len(await store.items_by_number(OTHER, [1])) == 1
    assert not await store.rename_repo(OTHER, new)
    assert len(await store.items_by_number(OTHER, [1])) == 1


async def test_profiles_round_trip_by_login_in_any_case(store: Store) -> None:
    """A profile's company and when it was fetched come back; logins match in any case."""
    from digest.backends.redis.mirror import RedisStore
    from digest.backends.sqlite.mirror import SQLiteStore
    from digest.mirror.profiles import Profile

    assert isinstance(store, SQLiteStore | RedisStore)
    kept = store
    assert await kept.profiles(["gshtras"]) == {}
    await kept.put_profiles([Profile("GShtras", "@AMD", at(1)), Profile("mgoin", "", at(2))])
    await kept.put_profiles([Profile("mgoin", "Red Hat", at(3))])
    found = await kept.profiles(["gshtras", "MGOIN", "nobody"])
    assert found == {
        "gshtras": Profile("GShtras", "@AMD", at(1)),
        "mgoin": Profile("mgoin", "Red Hat", at(3)),
    }
