"""How each language writes a list of words."""

from __future__ import annotations

from digest.i18n import join_words


def test_a_list_of_words() -> None:
    """Chinese lists with 、, English with commas and a last "and"."""
    assert join_words(["a", "b", "c"], "zh") == "a、b、c"
    assert join_words(["a", "b", "c"], "en") == "a, b and c"
    assert join_words(["a"], "en") == "a"
