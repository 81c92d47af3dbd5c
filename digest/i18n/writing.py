"""How each language writes what the catalog cannot hold: lists of words."""

from __future__ import annotations

from collections.abc import Sequence

from digest.i18n.catalog import phrase


def join_words(words: Sequence[str], lang: str) -> str:
    """``a、b、c`` / ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    sep, last = phrase("common.sep", lang), phrase("common.and", lang)
    return sep.join(words[:-1]) + last + words[-1]
