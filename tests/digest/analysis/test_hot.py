"""Hot discussions: human comments in the window, bots excluded, lifetime counts ignored."""

from __future__ import annotations

from datetime import timedelta

from digest.analysis.hot import hot_discussions
from tests.support.analysis_sample import (
    START,
    WINDOW,
    key,
    make_comment,
    make_item,
    sample_data,
)


def test_bots_do_not_rank_or_participate() -> None:
    """A bot's 50 comments do not make an item hot, and bots are never participants."""
    noisy = make_item(1, "CI storm", pr=True)
    debated = make_item(2, "Should the scheduler preempt?")
    comments = [make_comment(100 + i, 1, "github-actions[bot]", bot=True) for i in range(50)]
    comments += [make_comment(200, 1, "alice")]
    comments += [make_comment(300 + i, 2, who) for i, who in enumerate(["bob", "carol", "bob"])]
    comments += [make_comment(400, 2, "mergify[bot]", bot=True)]
    hot = hot_discussions({key(1): noisy, key(2): debated}, comments, WINDOW)
    assert [h.item.number for h in hot] == [2]
    assert hot[0].participants == ("bob", "carol")
    assert hot[0].heat == 3


def test_lifetime_comment_count_is_not_heat() -> None:
    """An old issue with 300 lifetime comments and one today ranks below a fresh debate."""
    old = make_item(1, "Old famous issue", created=START - timedelta(days=400), comments_total=300)
    fresh = make_item(2, "New debate")
    comments = [make_comment(1, 1, "alice"), make_comment(2, 1, "bob")]
    comments += [make_comment(10 + i, 2, who) for i, who in enumerate(["c", "d", "e"])]
    hot = hot_discussions({key(1): old, key(2): fresh}, comments, WINDOW)
    assert [h.item.number for h in hot] == [2, 1]


def test_ranked_by_comments_then_participants() -> None:
    """Equal comment counts are broken by the number of distinct people."""
    a, b = make_item(1, "A"), make_item(2, "B")
    comments = [make_comment(i, 1, "x") for i in range(4)]
    comments += [make_comment(10 + i, 2, who) for i, who in enumerate(["x", "y", "z", "w"])]
    hot = hot_discussions({key(1): a, key(2): b}, comments, WINDOW)
    assert [h.item.number for h in hot] == [2, 1]


def test_only_comments_inside_the_window() -> None:
    """Comments before the start or at the end of the window do not count."""
    item = make_item(1, "Edge")
    comments = [
        make_comment(1, 1, "a", at=WINDOW.start - timedelta(seconds=1)),
        make_comment(2, 1, "b", at=WINDOW.end),
        make_comment(3, 1, "c", at=WINDOW.start),
        make_comment(4, 1, "d", at=WINDOW.end - timedelta(seconds=1)),
    ]
    hot = hot_discussions({key(1): item}, comments, WINDOW)
    assert hot[0].participants == ("c", "d")


def test_participants_most_active_first() -> None:
    """Participants are distinct, the most active first, ties in order of first comment."""
    item = make_item(1, "Thread")
    order = ["ann", "ben", "cat", "ben", "cat", "cat"]
    comments = [
        make_comment(i, 1, who, at=START + timedelta(minutes=i)) for i, who in enumerate(order)
    ]
    hot = hot_discussions({key(1): item}, comments, WINDOW)
    assert hot[0].participants == ("cat", "ben", "ann")


def test_at_most_five() -> None:
    """No more than five discussions are returned."""
    items = {key(n): make_item(n, f"T{n}") for n in range(1, 9)}
    comments = [make_comment(k.number * 10 + i, k.number, f"u{i}") for k in items for i in range(3)]
    assert len(hot_discussions(items, comments, WINDOW)) == 5


def test_sample_hot_discussion() -> None:
    """In the sample only #33490 has comments in the window: xyang16 and mgoin, one each."""
    data = sample_data()
    hot = hot_discussions({i.key: i for i in data.items}, data.comments, data.window)
    assert [(h.item.number, h.heat, h.participants) for h in hot] == [
        (33490, 2, ("xyang16", "mgoin"))
    ]


def test_a_boilerplate_only_thread_is_never_hot() -> None:
    """ "Rebased on main." and "CI failure looks unrelated." are no discussion."""
    noise = make_item(1, "[Kernel] Faster MoE", pr=True)
    comments = [
        make_comment(1, 1, "alice", "Rebased on main."),
        make_comment(2, 1, "bob", "CI failure looks unrelated."),
        make_comment(3, 1, "carol", "LGTM"),
        make_comment(4, 1, "dave", "+1"),
    ]
    assert hot_discussions({key(1): noise}, comments, WINDOW) == ()


def test_a_hot_discussion_needs_two_substantive_comments() -> None:
    """One substantive comment among boilerplate is not enough; two are, and count as heat."""
    item = make_item(1, "[Bug]: hang")
    comments = [
        make_comment(1, 1, "alice", "It hangs at startup on 8 GPUs with the 0.15 image."),
        make_comment(2, 1, "bob", "any update?"),
        make_comment(3, 1, "carol", "LGTM"),
    ]
    assert hot_discussions({key(1): item}, comments, WINDOW) == ()
    comments.append(make_comment(4, 1, "dave", "I can reproduce it on H100 with TP=8 as well."))
    (hot,) = hot_discussions({key(1): item}, comments, WINDOW)
    assert hot.heat == 2 and hot.boilerplate == 2 and hot.participants == ("alice", "dave")
