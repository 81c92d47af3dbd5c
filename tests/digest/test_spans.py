"""Composing sentences from templates, links and untrusted text."""

from __future__ import annotations

from digest.models import ItemRef, Text, UserRef
from digest.spans import compose, join, user_url


def test_compose_places_links() -> None:
    """Placeholders become the given spans; strings become Text."""
    ref = ItemRef(1, "https://github.com/o/r/issues/1", "t")
    spans = compose("See {item} by {user}.", item=ref, user=UserRef("a", "https://github.com/a"))
    assert spans == (
        Text("See "),
        ref,
        Text(" by "),
        UserRef("a", "https://github.com/a"),
        Text("."),
    )


def test_untrusted_text_is_never_a_placeholder() -> None:
    """A title containing ``{user}`` stays text and is not replaced."""
    spans = compose("{title} — {user}", title="evil {user}", user="bob")
    assert spans == (Text("evil {user} — bob"),)


def test_join_like_words() -> None:
    """Groups are joined with the language's separators."""
    parts = [(Text("a"),), (Text("b"),), (Text("c"),)]
    assert join(parts, "en") == (Text("a, b and c"),)
    assert join(parts, "zh") == (Text("a、b、c"),)


def test_user_url_on_the_repository_host() -> None:
    """Profiles live on the repository's host; bots on their app page."""
    assert user_url("https://github.com/vllm-project/vllm", "mgoin") == "https://github.com/mgoin"
    assert user_url("https://ghe.example.com/o/r", "x") == "https://ghe.example.com/x"
    assert user_url("https://github.com/o/r", "dependabot[bot]") == (
        "https://github.com/apps/dependabot"
    )


def test_a_title_is_shortened_after_its_first_mention() -> None:
    """The first link to an item reads its whole title; later ones its words, short."""
    from digest.models import BulletList, ItemRef, Paragraph, Subheading, Text
    from digest.spans import repeats_shortened

    long = ItemRef(1, "https://github.com/o/r/pull/1", "[ROCm][Perf] Use AITER fused MoE for FP8")
    other = ItemRef(2, "https://github.com/o/r/pull/2", "[Doc] Fix a typo")
    blocks = (
        Paragraph((long, Text(" and "), other, Text("; "), long)),
        Subheading("x"),
        BulletList(((other,), (long,))),
    )
    first, heading, rest = repeats_shortened(blocks, limit=20)
    assert isinstance(first, Paragraph) and isinstance(rest, BulletList)
    assert first.spans[0] == long and first.spans[2] == other
    assert first.spans[4] == ItemRef(1, long.url, "Use AITER fused…")
    assert rest.items == ((ItemRef(2, other.url, "Fix a typo"),), (first.spans[4],))
    assert heading == Subheading("x")


def test_a_number_two_repositories_share_is_two_first_mentions() -> None:
    """In a scope of several repositories, #1 of one is not a repeat of #1 of the other; a
    shortened repeat keeps the repository it names."""
    from digest.models import ItemRef, Paragraph
    from digest.spans import repeats_shortened

    title, repo = "[ROCm] AITER MoE", "vllm-project/vllm"
    vllm = ItemRef(1, f"https://github.com/{repo}/pull/1", title, repo)
    sglang = ItemRef(1, "https://github.com/sgl-project/sglang/pull/1", title)
    (shown,) = repeats_shortened((Paragraph((vllm, sglang, vllm)),), limit=20)
    assert isinstance(shown, Paragraph)
    assert shown.spans[:2] == (vllm, sglang)
    assert shown.spans[2] == ItemRef(1, vllm.url, "AITER MoE", repo)
