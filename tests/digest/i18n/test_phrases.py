"""The report's sentences: both languages for every phrase."""

from __future__ import annotations

from digest.i18n.phrases import PHRASES


def test_every_phrase_has_both_languages() -> None:
    """A zh phrase and its en twin are both written."""
    assert [key for key, (zh, en) in PHRASES.items() if not zh.strip() or not en.strip()] == []


def test_every_singular_has_its_plural() -> None:
    """A ``.one`` variant stands beside the phrase it is the singular of."""
    singulars = [key for key in PHRASES if key.endswith(".one")]
    assert [key for key in singulars if key.removesuffix(".one") not in PHRASES] == []
