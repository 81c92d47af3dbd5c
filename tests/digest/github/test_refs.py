"""Fix references in PR titles and bodies."""

from __future__ import annotations

from digest.github.refs import fix_references

REPO = "vllm-project/vllm"


def test_keywords_short_refs_and_lists() -> None:
    """Fixes/Closes/Resolves with #N, lists of them, and a colon, in order, once each."""
    assert fix_references("Fixes #12", REPO) == (12,)
    assert fix_references("closes #1, #2 and #3; resolves: #2", REPO) == (1, 2, 3)
    assert fix_references("This PR fixed #40 (and prefixes #9 nothing)", REPO) == (40,)


def test_same_repository_urls_only() -> None:
    """Full URLs and owner/repo#N count for the same repository only."""
    text = (
        "Resolves https://github.com/vllm-project/vllm/issues/44\n"
        "Fixes https://github.com/other/repo/issues/5 and vllm-project/vllm#77"
    )
    assert fix_references(text, REPO) == (44, 77)


def test_code_comments_placeholders_and_self_are_ignored() -> None:
    """Code, HTML comments, template placeholders and the item itself are no references."""
    text = "<!-- Fixes #1 -->\n```\nfixes #2\n```\n`fixes #3`\nFIX #xxxx\nFixes #10"
    assert fix_references(text, REPO, own=10) == ()
