"""The words of refusals: both languages, the same placeholders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from digest.i18n import PLACEHOLDER
from digest.i18n.limits import LIMITS, refusal_text, reserve_text
from digest.models import Lang
from digest.state.limiter import Limited, Rate, Refusal

START = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)


def test_every_refusal_has_both_languages_and_the_same_placeholders() -> None:
    """A zh refusal and its en twin are both written and fill the same values."""
    for key, (zh, en) in LIMITS.items():
        assert zh.strip() and en.strip(), key
        assert set(PLACEHOLDER.findall(zh)) == set(PLACEHOLDER.findall(en)), key


def test_a_refusal_says_the_limit_and_when_in_both_languages() -> None:
    """The words name the rate and the moment to try again, in English and Chinese."""
    refusal = Refusal(
        "digest", "user", Rate(10, timedelta(minutes=10)), START + timedelta(minutes=2)
    )
    en = refusal_text(refusal, Lang.EN, START)
    zh = refusal_text(Limited(refusal, Lang.ZH).refusal, Lang.ZH, START)
    assert en == (
        "You have reached your limit of digests (10 per 10 minutes); try again after 03:23 UTC "
        "(in about 2 min)."
    )
    assert "每 10 分钟 10 次" in zh and "03:23 UTC" in zh and "约 2 分钟后" in zh
    channel = refusal_text(
        Refusal("question", "channel", Rate(1, timedelta(hours=1)), START), Lang.EN
    )
    assert channel.startswith("This channel has reached its limit of questions (1 per hour)")


def test_the_reserve_says_why_and_when_in_both_languages() -> None:
    """The reserve's refusal names the daily posts and the reset moment."""
    reset = START + timedelta(minutes=39, seconds=10)
    en = reserve_text(reset, Lang.EN, START)
    assert en == (
        "The bot is saving its GitHub budget for the daily posts; try again after 04:01 UTC "
        "(in about 40 min)."
    )
    assert "每日推送" in reserve_text(reset, Lang.ZH, START) and "04:01 UTC" in en
