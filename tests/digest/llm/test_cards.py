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
        {"author": "bob", "text": "Please add a benchmark for this change."},
        {
            "author": "rev",
            "text": "This branch skips the FP8 path entirely.",
            "review_of": "vllm/model_executor/layers/quantization/fp8.py",
        },
    ]
