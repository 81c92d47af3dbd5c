"""Key changes: merged PRs ranked by what they change, CI and docs left out."""

from __future__ import annotations

from digest.analysis.key_changes import key_changes
from digest.analysis.substance import Discussion
from tests.support.analysis_sample import make_item, sample_analysis

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
        make_item(1, "[Core] Scheduler tweak", pr=True),
        make_item(2, "[Core] Scheduler tweak", pr=True),
    ]
    assert [i.number for i in key_changes(merged, Discussion({1: 6}, {1: 3}))] == [1, 2]


def test_at_most_eight() -> None:
    """No more than eight key changes."""
    merged = [make_item(n, f"[Perf] Kernel {n}", pr=True) for n in range(1, 20)]
    assert len(key_changes(merged)) == 8


def test_sample_key_changes() -> None:
    """In the sample the aiter backend PR is the key change; the ROCm CI pin bump is not."""
    assert [i.number for i in sample_analysis().key_changes] == [32492]
