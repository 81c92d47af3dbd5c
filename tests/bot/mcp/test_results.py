"""The tools' typed results: the schemas an agent reads, with the digest's JSON fields."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.mcp.results import CountsInfo, DigestResult, ItemRow


def test_the_digest_schema_has_the_json_documents_fields() -> None:
    """The digest result carries the JSON schema's fields (docs/json-schema.md) and Markdown."""
    fields = set(DigestResult.model_json_schema()["properties"])
    assert {"repo", "window", "counts", "sections", "lists", "notes", "markdown"} <= fields
    assert set(CountsInfo.model_json_schema()["required"]) == {
        "new_issues",
        "closed_issues",
        "new_prs",
        "merged_prs",
        "closed_unmerged_prs",
    }


def test_results_are_frozen() -> None:
    """A result cannot be changed once made."""
    counts = CountsInfo(
        new_issues=1, closed_issues=0, new_prs=0, merged_prs=0, closed_unmerged_prs=0
    )
    with pytest.raises(ValidationError):
        counts.new_issues = 2  # type: ignore[misc]
    assert "comments" in ItemRow.model_json_schema()["required"]
