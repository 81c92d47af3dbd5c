"""The words of answers: every one in Chinese, and in English but for the summary's lead."""

from __future__ import annotations

from digest.i18n.answers import ANSWERS


def test_only_the_summarys_lead_is_unsaid_in_english() -> None:
    """Chinese opens the summary with where it looked (vLLM 本周的…); English says it at the
    end, so its lead is the one empty phrase."""
    assert [key for key, (zh, _) in ANSWERS.items() if not zh.strip()] == []
    assert [key for key, (_, en) in ANSWERS.items() if not en.strip()] == ["answer.summary.lead"]
