"""Substance: filled-in descriptions, template lines, bumps, reverts, discussion."""

from __future__ import annotations

from dataclasses import replace

from digest.analysis.key_changes import key_changes
from digest.analysis.substance import (
    Discussion,
    description_words,
    is_dependency_bump,
    is_reland,
    is_revert,
    template_lines,
)
from digest.analysis.text import title_tags
from tests.support.analysis_sample import key, make_item

TEMPLATE = "## Purpose\n{text}\n## Test Plan\n\n## Test Result\n\n- [ ] The test plan\n"


def test_template_lines_are_not_substance() -> None:
    """Lines shared by several bodies, headings and checklists add nothing; prose does."""
    items = [make_item(n, pr=True, body=TEMPLATE.format(text="")) for n in range(1, 4)]
    filled = make_item(9, pr=True, body=TEMPLATE.format(text="Drop the stale block hash first."))
    template = template_lines([*items, filled])
    assert "## test plan" in template
    assert description_words(items[0], template) == 0
    assert description_words(filled, template) == 6


def test_code_blocks_and_chinese_count() -> None:
    """A pasted benchmark counts as a few lines; Chinese text counts by characters."""
    assert description_words(make_item(1, body="Results: [code]")) == 13
    assert description_words(make_item(2, body="修复前缀缓存的数据损坏")) == 5


def test_conventional_commit_prefix_counts_like_a_tag() -> None:
    """``feat(grpc):`` reads as the tags feature and grpc; ``fix(rocm)!:`` as bugfix and rocm."""
    assert title_tags("feat(grpc): serve over gRPC") == ("feature", "grpc")
    assert title_tags("fix(rocm)!: guard the MI300X path") == ("bugfix", "rocm")
    assert title_tags("feature: not a prefix") == ()


def test_bumps_reverts_and_relands_are_recognised() -> None:
    """Dependency bumps are told apart from reverts and re-lands."""
    assert is_dependency_bump(make_item(1, "Bump torch from 2.8 to 2.9", pr=True))
    assert is_dependency_bump(make_item(2, "[CI] pin x", pr=True, labels=("dependencies",)))
    assert is_revert(make_item(3, 'Revert "[Core] Async scheduling"', pr=True))
    assert is_reland(make_item(4, "[Core] Re-land async scheduling", pr=True))
    assert not is_revert(make_item(5, "[Core] Async scheduling, revert-safe", pr=True))


def test_fixes_and_participants_lift_a_plain_title() -> None:
    """A PR that fixes an issue and was reviewed by several people outranks a tagged tweak."""
    tweak = make_item(
        1,
        "[Kernel] Add tuned fused MoE config for H200",
        pr=True,
        body="Adds the file that the benchmark script produced today.",
    )
    fix = replace(
        make_item(
            2,
            "Handle preemption in the block pool",
            pr=True,
            body="Freed blocks kept their hash, so a preempted request could reuse stale KV.",
        ),
        fixes=(7,),
    )
    talk = Discussion({key(2): 6}, {key(2): 4})
    assert [i.number for i in key_changes([tweak, fix], talk)] == [2, 1]


def test_bot_and_bump_stay_out() -> None:
    """A bot's PR and a dependency bump are never key changes, however discussed."""
    bot = make_item(1, "[Kernel] Faster GEMM", pr=True, author="renovate[bot]", bot=True)
    bump = make_item(2, "Bump flashinfer from 0.4 to 0.5", pr=True)
    assert (
        key_changes([bot, bump], Discussion({key(1): 9, key(2): 9}, {key(1): 5, key(2): 5})) == ()
    )
