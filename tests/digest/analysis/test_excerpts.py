"""Excerpts: the purpose or change part of a description, in whole sentences."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from digest.analysis.excerpts import excerpt_sentences, whole
from tests.support.analysis_sample import sample_data

ENDS = ("。", ".", "!", "?", "！", "？", "…", ")", "）")


def test_the_change_part_wins_over_the_problem() -> None:
    """ "Solution" and "What this PR does" come before "Problem" and the untitled start."""
    body = (
        "Thanks for the review!\n\n## Problem\nThe server crashes on SM120 parts at startup.\n\n"
        "## Solution\nAdd the SM120 family next to the SM100 checks in the MoE selection.\n"
    )
    assert excerpt_sentences(body, True) == [
        "Add the SM120 family next to the SM100 checks in the MoE selection."
    ]


def test_an_excerpt_never_runs_into_a_code_block() -> None:
    """A sentence that introduces a code block is dropped, not cut before the block."""
    body = (
        "## Purpose\nMove the gRPC server into its own package.\n"
        "Today the server fails to start with [code] and the log shows more."
    )
    found = excerpt_sentences(body, True)
    assert found == ["Move the gRPC server into its own package."]
    body = "### Describe the bug\nThe engine fails to start with:\n [code] \n"
    assert excerpt_sentences(body, False) == []


def test_form_parts_are_skipped() -> None:
    """Environment, expected behaviour and test plans are no excerpt."""
    body = (
        "### Your current environment\nFalling back to v0.14.0 with torch 2.9.1 today.\n"
        "## Expected Behavior\nA much higher acceptance rate than we see.\n"
    )
    assert excerpt_sentences(body, False) == []


@given(st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=6), st.integers(20, 200))
def test_whole_ends_a_sentence_or_with_an_ellipsis(parts: list[str], limit: int) -> None:
    """Whatever the sentences and the limit, the result fits and ends a sentence or with …"""
    found = [p.strip() for p in parts if p.strip()]
    out = whole(found, limit)
    if out:
        assert len(out) <= limit + 1 and out.endswith(ENDS)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_excerpt_of_the_sample_ends_mid_sentence(lang: str) -> None:
    """Every item of the 2026-01-31 sample is explained in whole sentences."""
    from digest.writers.template.context import context
    from tests.support.analysis_sample import sample_analysis

    ctx = context(sample_analysis(), lang)  # type: ignore[arg-type]
    for item in sample_data().items:
        what = ctx.what(item)
        assert not what or what.endswith(ENDS), (item.number, what)
        assert not what.rstrip("…").endswith(("with", "the", "to", ":"))


def test_the_prose_after_a_code_block_goes_on() -> None:
    """A line that runs into a block mid-sentence is dropped; the next lines are read."""
    body = (
        "## Purpose\nThe FP8 MoE path fell back to Triton, which fails to start with\n\n"
        " [code] \n\nThis PR routes FP8 experts to the AITER fused MoE kernel.\n"
    )
    assert excerpt_sentences(body, True) == [
        "This PR routes FP8 experts to the AITER fused MoE kernel."
    ]
