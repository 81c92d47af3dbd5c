"""The Discord front end: ``/vllm-report`` and friends, digest threads and mentions."""

from bot.discord_bot.client import ReportClient, build_discord_client
from bot.discord_bot.endpoints import point_discord_at
from bot.discord_bot.handlers import DiscordFrontEnd
from bot.discord_bot.limits import LimitError
from bot.discord_bot.render import (
    DiscordPost,
    EmbedSpec,
    MessageSpec,
    render_answer,
    render_discord,
    validate,
)
from bot.discord_bot.subscriptions import MemorySubscriptions
from bot.subscriptions import Subscriptions

__all__ = [
    "DiscordFrontEnd",
    "DiscordPost",
    "EmbedSpec",
    "LimitError",
    "MemorySubscriptions",
    "MessageSpec",
    "ReportClient",
    "Subscriptions",
    "build_discord_client",
    "point_discord_at",
    "render_answer",
    "render_discord",
    "validate",
]
