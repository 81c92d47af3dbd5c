"""The website's words: both languages for every phrase, with the same placeholders."""

from __future__ import annotations

from digest.i18n import PLACEHOLDER
from digest.i18n.site import SITE, site_t


def test_every_phrase_has_both_languages_and_the_same_placeholders() -> None:
    """A zh phrase and its en twin are both written and fill the same values."""
    for key, (zh, en) in SITE.items():
        assert zh.strip() and en.strip(), key
        assert set(PLACEHOLDER.findall(zh)) == set(PLACEHOLDER.findall(en)), key


def test_values_are_filled_once() -> None:
    """A value that looks like a placeholder is shown as it is, never filled again."""
    assert site_t("site.back", "en", name="{name}") == "« Back to {name} Reports"
    assert site_t("site.back", "zh", name="vLLM") == "« 返回 vLLM 报告"
