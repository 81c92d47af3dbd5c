"""Spans as Discord shows them on one line, to compare packed chunks against."""

from __future__ import annotations

from bot.discord.markdown import line_tokens
from digest.models import Inline


def render_spans(spans: tuple[Inline, ...]) -> str:
    """A run of spans as one line of Discord markdown."""
    return "".join(line_tokens(spans))
