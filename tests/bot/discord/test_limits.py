"""The validator of Discord's message limits."""

from __future__ import annotations

import pytest

from bot.discord.limits import LimitError, check, dlen, problems


def test_valid_message_has_no_problems() -> None:
    """A message inside every limit passes."""
    message = {"content": "x" * 2000, "embeds": [{"title": "t" * 256, "description": "d" * 4096}]}
    assert problems(message) == []


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ({"content": "x" * 2001}, "content has 2001 characters (limit 2000)"),
        ({"embeds": [{"description": "d"}] * 11}, "11 embeds (limit 10)"),
        ({"embeds": [{"title": "t" * 257}]}, "embed 0 title has 257 characters (limit 256)"),
        ({"embeds": [{"description": "d" * 4097}]}, "embed 0 description has 4097 characters"),
        (
            {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
            "embeds hold 6001 characters (limit 6000)",
        ),
        (
            {"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]},
            "embed 0 field 0 value has 1025 characters (limit 1024)",
        ),
        ({"content": " "}, "the message is empty"),
    ],
)
def test_each_limit_is_checked(message: dict[str, object], problem: str) -> None:
    """Every documented limit is reported by name."""
    assert any(p.startswith(problem) for p in problems(message))


def test_length_counts_utf16_units() -> None:
    """Characters outside the BMP (emoji) count twice, as JavaScript counts them."""
    assert dlen("📊 摘要") == 5


def test_check_raises_with_every_problem() -> None:
    """check() names the message and the limit it breaks."""
    with pytest.raises(LimitError, match="message 1: content has 2001"):
        check([{"content": "ok"}, {"content": "x" * 2001}])
