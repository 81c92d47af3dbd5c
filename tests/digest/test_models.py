"""The domain model: the language type."""

from __future__ import annotations

import json

import pytest

from digest.models import Lang


@pytest.mark.parametrize(
    ("text", "lang"),
    [("zh", Lang.ZH), ("en", Lang.EN), ("EN", Lang.EN), ("Zh", Lang.ZH)],
)
def test_a_language_is_named_in_any_case(text: str, lang: Lang) -> None:
    """``zh`` and ``en`` name the two languages, whatever their case."""
    assert Lang.parse(text) is lang


@pytest.mark.parametrize("text", ["fr", "zh-CN", "chinese", " zh", "", None])
def test_anything_else_names_no_language(text: str | None) -> None:
    """Another language, a locale or a blank is no language: the edge that read it says so."""
    assert Lang.parse(text) is None


def test_a_language_stays_a_string() -> None:
    """In JSON, a cache key and a path a language is its code."""
    assert json.dumps({"lang": Lang.ZH}) == '{"lang": "zh"}'
    assert f"{Lang.EN}|" == "en|" and str(Lang.ZH) == "zh"
