"""Why a day is pending, in the site's words and its language, never a chat message."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from bot.site.failures import failure_text
from digest.errors import DigestError, NotFound, RateLimited, SearchRefused, SourceUnavailable
from digest.models import Lang


def test_each_failure_is_said_in_each_language() -> None:
    reset = datetime(2026, 3, 11, 12, 21, tzinfo=timezone(timedelta(hours=8)))
    limited = RateLimited(reset, authenticated=True)
    assert failure_text(limited, Lang.EN) == (
        "GitHub's rate limit is used up (it resets 2026-03-11 04:21 UTC); the next build makes it"
    )
    assert failure_text(limited, Lang.ZH).startswith(
        "GitHub 的速率限制已用尽（2026-03-11 04:21 UTC"
    )
    refused = SearchRefused("old/name", 422, "Validation Failed")
    assert failure_text(refused, Lang.EN) == "GitHub's search refused this repository's query (422)"
    assert (
        failure_text(SourceUnavailable("timeout"), Lang.ZH) == "暂时无法连接 GitHub，下次构建时生成"
    )
    assert failure_text(NotFound("o/r"), Lang.EN) == "the repository is not on GitHub"
    other = failure_text(DigestError("boom"), Lang.EN)
    assert other == "the report could not be built (DigestError)"
    for error in (limited, refused, SourceUnavailable("x")):
        for lang in Lang:
            assert "try again" not in failure_text(error, lang).lower()
    assert RateLimited(None, authenticated=False).reset_at is None
    assert "used up" in failure_text(RateLimited(None, authenticated=False), Lang.EN)
