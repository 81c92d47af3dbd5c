"""The Discord front end: ``/vllm-report`` and friends, digest threads and mentions."""

from bot.commands.subscriptions import Subscriptions
from bot.discord.app import ReportClient, build_discord_client
from bot.discord.endpoints import point_discord_at
from bot.discord.handlers import DiscordFrontEnd
from bot.discord.limits import LimitError
from bot.discord.render import (
    DiscordPost,
    EmbedSpec,
    MessageSpec,
    render_answer,
    render_discord,
    validate,
)

__all__ = [
    "DiscordFrontEnd",
    "DiscordPost",
    "EmbedSpec",
    "LimitError",
    "MessageSpec",
    "ReportClient",
    "Subscriptions",
    "build_discord_client",
    "point_discord_at",
    "render_answer",
    "render_discord",
    "validate",
]
