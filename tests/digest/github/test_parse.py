"""GitHub rows into domain objects: review comments."""

from __future__ import annotations

from datetime import timedelta

from digest.github.parse import review_comment_from_api
from digest.models import CommentKind
from tests.fakes.github import review_comment_row
from tests.support.synthetic import DEFAULT_NOW

REPO = "vllm-project/vllm"


def test_review_comment_names_its_pr_file_and_thread() -> None:
    """A review comment belongs to the PR of its pull_request_url and keeps path and reply."""
    row = review_comment_row(REPO, 55, 40123, created=DEFAULT_NOW, in_reply_to=54)
    got = review_comment_from_api(row, REPO)
    assert (got.kind, got.item_number, got.author) == (CommentKind.REVIEW, 40123, "carol")
    assert got.path == "vllm/model_executor/layers/fused_moe/layer.py"
    assert got.in_reply_to_id == 54 and got.is_review
    assert got.url == f"https://github.com/{REPO}/pull/40123#discussion_r55"


def test_review_comment_of_a_deleted_account_is_a_ghost() -> None:
    """A null user reads as ``ghost`` and is not counted as a participant."""
    row = review_comment_row(
        REPO, 56, 7, created=DEFAULT_NOW, updated=DEFAULT_NOW + timedelta(hours=1), login=None
    )
    row.pop("html_url")
    got = review_comment_from_api(row, REPO, "https://ghe.example")
    assert (got.author, got.author_is_bot, got.in_reply_to_id) == ("ghost", True, None)
    assert got.updated_at == DEFAULT_NOW + timedelta(hours=1)
    assert got.url == f"https://ghe.example/{REPO}/pull/7#discussion_r56"
