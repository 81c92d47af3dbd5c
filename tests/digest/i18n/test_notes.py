"""The notes on a degraded answer or digest: both languages, the same placeholders."""

from __future__ import annotations

from digest.i18n import PLACEHOLDER
from digest.i18n.notes import NOTES


def test_every_note_has_both_languages_and_the_same_placeholders() -> None:
    """A zh note and its en twin are both written and fill the same values."""
    for key, (zh, en) in NOTES.items():
        assert zh.strip() and en.strip(), key
        assert set(PLACEHOLDER.findall(zh)) == set(PLACEHOLDER.findall(en)), key
