"""Item cards: what a model reads about an item and its comments."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from digest.llm.cards import DETAILS, Source, card
from digest.llm.grounding import Grounds
from digest.models import CommentKind
from tests.support.analysis_sample import START, make_comment, make_item, window_data


def test_review_comment_is_marked_with_its_file() -> None:
    """A review comment on a card says which file it reviews; a conversation comment does not."""
    pr = make_item(1, pr=True, author="ann")
    talk = make_comment(1, 1, "bob", "Please add a benchmark for this change.")
    review = replace(
        make_comment(
            2, 1, "rev", "This branch skips the FP8 path entirely.", at=START + timedelta(hours=3)
        ),
        kind=CommentKind.REVIEW,
        path="vllm/model_executor/layers/quantization/fp8.py",
    )
    grounds = Grounds.of(window_data((pr,), (talk, review)))
    out = card(Source(pr, (talk, review)), DETAILS[0], grounds)
    assert out["comments"] == [
        {"author": "bob", "act": "info", "text": "Please add a benchmark for this change."},
        {
            "author": "rev",
            "act": "info",
            "text": "This branch skips the FP8 path entirely.",
            "review_of": "vllm/model_executor/layers/quantization/fp8.py",
        },
    ]


def test_cards_carry_roles_acts_and_no_boilerplate() -> None:
    """A comment card says its author's role and affiliation and what it does; "LGTM" and
    "Rebased on main." are left out."""
    pr = make_item(1, pr=True, author="ann")
    said = (
        make_comment(1, 1, "bob", "LGTM"),
        make_comment(2, 1, "eve-amd", "I can reproduce the hang on MI300X with ROCm 6.4."),
        make_comment(3, 1, "bob", "Rebased on main."),
    )
    people = {"eve-amd": {"role": "community", "affiliation": "AMD"}}
    out = card(Source(pr, said, {}, people), DETAILS[0], Grounds.of(window_data((pr,), said)))
    assert out["comments"] == [
        {
            "author": "eve-amd",
            "role": "community",
            "affiliation": "AMD",
            "act": "reproduce",
            "text": "I can reproduce the hang on MI300X with ROCm 6.4.",
        }
    ]
