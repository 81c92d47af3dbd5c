"""Threads read as a maintainer reads them: boilerplate, substance, acts, questions, status."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from digest.analysis.threads import (
    act_of,
    comment_substance,
    is_boilerplate,
    open_question,
    thread_state,
)
from tests.support.analysis_sample import START, make_comment, make_item

BOILERPLATE = [
    "LGTM",
    "lgtm, thanks!",
    "Rebased on main.",
    "rebased",
    "CI failure looks unrelated.",
    "The failing tests seem unrelated",
    "+1",
    "Any update?",
    "@alice any update on this?",
    "/ready",
    "@mergify rebase",
    "Thanks!",
    "gentle ping @bob",
    "same issue",
]
SUBSTANTIVE = [
    "I reproduced it on MI300X with ROCm 6.4 and the 0.15 image.",
    "The root cause is the block size check in `get_supported_kernel_block_sizes`.",
    "Setting VLLM_USE_V1=0 works around it: 4.4ms -> 3.2ms on my box.",
]


def _said(cid: int, author: str, body: str, hours: float = 1.0):  # type: ignore[no-untyped-def]
    return make_comment(cid, 1, author, body, at=START + timedelta(hours=hours))


@pytest.mark.parametrize("body", BOILERPLATE)
def test_boilerplate_is_recognised(body: str) -> None:
    """Approval, rebase and CI chatter, +1, pings and bot commands are boilerplate."""
    assert is_boilerplate(_said(1, "bob", body))
    assert comment_substance(_said(1, "bob", body)) == 0.0


@pytest.mark.parametrize("body", SUBSTANTIVE)
def test_substantive_comments_are_not_boilerplate(body: str) -> None:
    """Reports, causes and workarounds are substance."""
    assert not is_boilerplate(_said(1, "bob", body))
    assert comment_substance(_said(1, "bob", body)) > 0


def test_substance_favours_numbers_code_and_reproduction() -> None:
    """A reproduction with numbers and code outweighs a longer vague comment."""
    vague = _said(1, "bob", "I am also seeing something like this on my machine sometimes today.")
    telling = _said(2, "eve", "Reproduced on MI300X: `fused_moe` takes 4.4ms vs 3.2ms on main.")
    assert comment_substance(telling) > comment_substance(vague)


@pytest.mark.parametrize(
    ("body", "act"),
    [
        ("I can reproduce this on MI300X with the 0.15 image.", "reproduce"),
        ("The root cause is the stale block table after preemption.", "root_cause"),
        ("As a workaround, try setting --enforce-eager for now.", "solution"),
        ("Tested the fix on H100 and it works for me now.", "verify"),
        ("Could you share the full log and your GPU model?", "ask_info"),
        ("This is a duplicate of #123, closing here.", "duplicate"),
        ("Makes sense to me, approving once CI is green.", "approve"),
        ("The model has 64 experts and uses a shared expert per layer.", "info"),
    ],
)
def test_each_comment_is_named_by_what_it_does(body: str, act: str) -> None:
    """Comments are summarised by their act: 复现确认, 根因分析, 给出方案, 验证结果…"""
    assert act_of(_said(1, "bob", body)) == act


def test_a_question_answered_later_is_not_open() -> None:
    """A maintainer's question answered by the reporter an hour later is no open question."""
    issue = make_item(1, "[Bug]: hang")
    thread = [
        _said(1, "mgoin", "Could you share the full log of the hang?", 1),
        _said(2, "alice", "Here is the log; it hangs in the NCCL init step on 8 GPUs.", 2),
    ]
    assert open_question(thread) is None
    assert thread_state(issue, thread).status != "waiting_reporter"


def test_an_unanswered_question_waits_for_the_reporter() -> None:
    """The last question, asked by someone else and not answered, waits for the reporter."""
    issue = make_item(1, "[Bug]: hang")
    thread = [
        _said(1, "alice", "It hangs at startup on 8 GPUs with the 0.15 image.", 1),
        _said(2, "mgoin", "Could you share the full log of the hang?", 2),
        _said(3, "alice", "LGTM", 3),
    ]
    state = thread_state(issue, thread)
    assert open_question(thread) == thread[1]
    assert state.status == "waiting_reporter" and state.question == thread[1]


def test_the_status_comes_from_the_last_substantive_comments() -> None:
    """A workaround or a narrowed cause in the last comments is the thread's status."""
    issue = make_item(1, "[Bug]: garbage output")
    workaround = [
        _said(1, "alice", "Output is garbage with prefix caching on A100 and large batches.", 1),
        _said(2, "bob", "Switching to FLASHINFER attention is a workaround that works for me.", 2),
        _said(3, "carol", "Rebased on main.", 3),
    ]
    state = thread_state(issue, workaround)
    assert state.status == "workaround" and state.finding == workaround[1]
    cause = [
        *workaround[:1],
        _said(4, "dave", "Bisected: the regression from #99 changed the block table layout.", 2),
    ]
    assert thread_state(issue, cause).status == "cause"


def test_a_thread_where_only_the_author_speaks_is_stuck() -> None:
    """An open issue whose author alone comments is stuck."""
    issue = make_item(1, "[Bug]: hang")
    thread = [
        _said(1, "alice", "It hangs at startup on 8 GPUs with the 0.15 image.", 1),
        _said(2, "alice", "Still hangs with the nightly build from today as well.", 2),
    ]
    assert thread_state(issue, thread).status == "stuck"


def test_bots_are_boilerplate() -> None:
    """A bot's comment is boilerplate however long."""
    said = dataclasses.replace(
        _said(1, "bot", "This pull request has merge conflicts that must be resolved."),
        author_is_bot=True,
    )
    assert is_boilerplate(said)
