"""The allow-list: owner/name and owner/* patterns, any case."""

from __future__ import annotations

import pytest

from digest.github.allow_list import AllowList, valid_pattern


def test_an_owner_wildcard_allows_that_owners_repositories_only() -> None:
    """``vllm-project/*`` allows every vllm-project repository, in any case, and no other."""
    allow = AllowList.of(["vllm-project/*", "sgl-project/sglang"])
    assert allow.allows("vllm-project/vllm") and allow.allows("VLLM-Project/guidellm")
    assert allow.allows("SGL-project/SGLang")
    assert not allow.allows("sgl-project/other") and not allow.allows("vllm-projectx/vllm")
    assert allow.shown() == "vllm-project/*, sgl-project/sglang"


def test_no_list_allows_every_repository_and_lists_none() -> None:
    """Without patterns every repository may be followed, but none is listed (private ones
    stay out)."""
    allow = AllowList.of([" ", ""])
    assert not allow.restricted
    assert allow.allows("anyone/anything") and not allow.lists("anyone/anything")


@pytest.mark.parametrize("bad", ["*", "*/*", "owner", "owner/na me", "a/b/c", "/name"])
def test_a_malformed_pattern_is_refused(bad: str) -> None:
    """A pattern that is neither owner/name nor owner/* is an error, not a silent miss."""
    assert not valid_pattern(bad)
    with pytest.raises(ValueError, match="neither owner/name nor owner/"):
        AllowList.of([bad])
