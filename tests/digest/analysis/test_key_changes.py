"""Key changes: merged PRs ranked by what they change, CI and docs left out."""

from __future__ import annotations

from dataclasses import replace

from digest.analysis.key_changes import key_changes
from digest.analysis.substance import Discussion
from tests.support.analysis_sample import key, make_item, sample_analysis

BODY = "This replaces the slow path with a fused kernel for the common shapes."


def test_substantive_changes_rank_first() -> None:
    """[Perf]/[Kernel]/[Model] PRs outrank plain ones; CI, docs and typo fixes are left out."""
    merged = [
        make_item(1, "[CI] Retry flaky test", pr=True),
        make_item(2, "[Doc] Fix typo in README", pr=True),
        make_item(3, "Fix typo in the scheduler docstring", pr=True),
        make_item(4, "[Perf] Fused MoE kernel for MI300X", pr=True, body=BODY),
        make_item(5, "[Model] Add support for Qwen3.5", pr=True, body=BODY),
        make_item(6, "Refresh the help text", pr=True),
        make_item(7, "[Kernel] Faster FP8 GEMM", pr=True, author="dependabot[bot]", bot=True),
    ]
    ranked = [item.number for item in key_changes(merged)]
    assert ranked[:2] == [4, 5]
    assert not {1, 2, 3, 7} & set(ranked)


def test_discussion_breaks_ties() -> None:
    """Of two similar PRs the one discussed more in the window ranks first."""
    merged = [
        make_item(1, "[Core] Scheduler tweak", pr=True, body=BODY),
        make_item(2, "[Core] Scheduler tweak", pr=True, body=BODY),
    ]
    assert [i.number for i in key_changes(merged, Discussion({key(1): 6}, {key(1): 3}))] == [1, 2]


def test_at_most_eight() -> None:
    """No more than eight key changes."""
    merged = [make_item(n, f"[Perf] Kernel {n}", pr=True, body=BODY) for n in range(1, 20)]
    assert len(key_changes(merged)) == 8


def test_sample_key_changes() -> None:
    """In the sample the aiter backend PR is the key change; the ROCm CI pin bump is not."""
    assert [i.number for i in sample_analysis().key_changes] == [32492]


def test_a_description_that_only_repeats_the_title_is_no_key_change() -> None:
    """A merge whose body adds nothing to its title is left out; fewer items beat filler."""
    echo = make_item(1, "[Perf] Faster fused MoE kernel", pr=True, body="Faster fused MoE kernel.")
    empty = make_item(2, "[Kernel] Tune the FP8 GEMM", pr=True)
    told = make_item(3, "[Kernel] Tune the FP8 GEMM for H200", pr=True, body=BODY)
    assert [i.number for i in key_changes([echo, empty, told])] == [3]
    fixing = replace(make_item(4, "[Bugfix] Handle preemption", pr=True), fixes=(7,))
    assert [i.number for i in key_changes([fixing])] == [4]


def test_every_key_change_of_the_sample_adds_to_its_title() -> None:
    """No key change of the 2026-01-31 sample lacks a description beyond its title."""
    from digest.analysis.substance import words_beyond_title

    for item in sample_analysis().key_changes:
        assert item.fixes or words_beyond_title(item) >= 8
