"""The words of what may be followed: both languages, the same placeholders, Chinese prose."""

from __future__ import annotations

import re

from digest.i18n import PLACEHOLDER, has_phrase
from digest.i18n.follows import FOLLOWS

_HAN = re.compile(r"[\u4e00-\u9fff]")


def test_every_phrase_has_both_languages_and_the_same_placeholders() -> None:
    """A zh phrase and its en twin are both written, fill the same values and are in the
    catalog; the zh one is Chinese, with full-width punctuation."""
    for key, (zh, en) in FOLLOWS.items():
        assert zh.strip() and en.strip() and has_phrase(key), key
        assert set(PLACEHOLDER.findall(zh)) == set(PLACEHOLDER.findall(en)), key
        assert _HAN.search(zh) and not _HAN.search(en), key
        assert not re.search(r"[\u4e00-\u9fff][,.:;()]", zh), key  # no half-width after Han
