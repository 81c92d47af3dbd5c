"""The zh report is Chinese prose: at least 40 % Chinese characters in every section but the
appendix once titles, logins, links and code are set aside, and no English sentence quoted."""

from __future__ import annotations

import pytest

from digest.i18n.share import chinese_share, english_quotes, prose
from digest.models import Digest, Paragraph, Text
from tests.support.analysis_sample import build_digest, sample_analysis

FLOOR = 0.40


def _days() -> dict[str, Digest]:
    from tests.digest.writers.test_template import _synthetic_analysis

    return {
        "2026-01-31": build_digest(sample_analysis(), "zh"),
        "synthetic": build_digest(_synthetic_analysis(), "zh"),
    }


def test_share_counts_chinese_against_latin_letters_and_digits() -> None:
    """Links, mentions and numbers of items are no prose; punctuation counts for neither."""
    assert chinese_share("中文 ab") == 0.5
    assert chinese_share("修复 https://example.com/x @alice #123。") == 1.0
    assert chinese_share("") == 1.0
    # a name counts one, an English word its letters; by letters, both alike
    assert chinese_share("修复 ROCm 的 bug") == 3 / 7
    assert chinese_share("修复 ROCm 的 bug", names=False) == 3 / 10
    assert prose((Paragraph((Text("修复"), Text("fused_moe", "code"))),)) == "修复"


def test_english_quotes_are_found() -> None:
    """A quoted English sentence is found; a quoted Chinese one or a short name is not."""
    assert english_quotes("他说“This breaks the scheduler today”。") == [
        "This breaks the scheduler today"
    ]
    assert english_quotes("他说“我不同意 AITER 默认关闭”。") == []
    assert english_quotes("“LoRA”") == []


@pytest.mark.parametrize("day", ["2026-01-31", "synthetic"])
def test_every_zh_section_but_the_appendix_is_at_least_40_percent_chinese(day: str) -> None:
    """Measured per section, on the fixture day and on a synthetic vLLM-sized day."""
    digest = _days()[day]
    shares = {
        s.id: round(chinese_share(prose(s.blocks)), 2)
        for s in digest.sections
        if s.id != "appendix"
    }
    assert shares and all(share >= FLOOR for share in shares.values()), shares


@pytest.mark.parametrize("day", ["2026-01-31", "synthetic"])
def test_no_english_sentence_is_quoted_in_zh_prose(day: str) -> None:
    """zh says what a comment or description does; it never quotes English sentences."""
    for section in _days()[day].sections:
        assert english_quotes(prose(section.blocks)) == [], section.id
