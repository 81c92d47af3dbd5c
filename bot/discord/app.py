"""The Discord app: the discord.py client, its application commands and mentions, wired to the
front end."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice

from bot.commands.buttons import PREFIX
from bot.commands.grammar import MAX_QUESTION, ListSubscriptionsCommand
from bot.connection import Connection
from bot.discord.endpoints import point_discord_at
from bot.discord.handlers import DiscordFrontEnd, custom_id
from bot.discord.options import (
    ask_command,
    digest_command,
    repo_choices,
    settings_command,
    subscribe_command,
    topic_choices,
    unsubscribe_command,
    window_choices,
)
from config.settings import DiscordSettings
from digest.windows import WINDOW_EXAMPLES

log = logging.getLogger(__name__)

LANGUAGES = [Choice(name="English", value="en"), Choice(name="中文", value="zh")]
WRITERS = [Choice(name="template (no model)", value="template"), Choice(name="llm", value="llm")]
SCHEDULES = [
    Choice(name="daily", value="daily"),
    Choice(name="weekdays (Monday to Friday)", value="weekdays"),
    Choice(name="weekly (the last 7 days)", value="weekly"),
]
SCOPES = [
    Choice(name="this channel", value="channel"),
    Choice(name="this server", value="workspace"),
]
DAYS = [
    Choice(name=name, value=name[:3].lower())
    for name in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
]


def _value(choice: Choice[str] | None) -> str | None:
    return choice.value if choice is not None else None


def _choices(values: list[str]) -> list[Choice[str]]:
    return [Choice(name=v, value=v) for v in values]


def add_commands(tree: app_commands.CommandTree[Any], front: DiscordFrontEnd) -> None:
    """Register ``/vllm-report`` and its sibling commands on ``tree``."""
    config = front.core.config

    async def complete_window(
        interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        repo = getattr(interaction.namespace, "repository", None)
        chosen = repo if isinstance(repo, str) and "/" in repo else None
        return _choices(window_choices(current, now=front.clock(), config=config, repo=chosen))

    async def complete_topic(
        interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        return _choices(topic_choices(current.rsplit(",", 1)[-1], config))

    async def complete_repo(
        interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        return _choices(repo_choices(current, config))

    @app_commands.command(name="vllm-report", description="A digest of a GitHub repository")
    @app_commands.describe(
        window=WINDOW_EXAMPLES,
        topic="Only one focus topic",
        language="The report's language",
        repository="owner/name, several as a/b,c/d, or scope:NAME",
        private="Send the digest to me by direct message",
    )
    @app_commands.choices(language=LANGUAGES)
    @app_commands.autocomplete(
        window=complete_window, topic=complete_topic, repository=complete_repo
    )
    async def report(
        interaction: discord.Interaction[Any],
        window: str | None = None,
        topic: str | None = None,
        language: Choice[str] | None = None,
        repository: str | None = None,
        private: bool = False,
    ) -> None:
        await front.run(
            interaction,
            lambda: digest_command(window, topic, _value(language), repository, private),
            front.report,
        )

    @app_commands.command(name="vllm-ask", description="Ask about a repository's recent activity")
    @app_commands.describe(
        question="e.g. what's new in ROCm?",
        language="The answer's language",
        repository="owner/name",
    )
    @app_commands.choices(language=LANGUAGES)
    @app_commands.autocomplete(repository=complete_repo)
    async def ask(
        interaction: discord.Interaction[Any],
        question: app_commands.Range[str, 1, MAX_QUESTION],
        language: Choice[str] | None = None,
        repository: str | None = None,
    ) -> None:
        await front.run(
            interaction, lambda: ask_command(question, _value(language), repository), front.ask
        )

    @app_commands.command(
        name="vllm-subscribe",
        description="Post a scheduled digest in this channel (channel managers)",
    )
    @app_commands.describe(
        schedule="daily (default), weekdays, or weekly",
        day="The day of a weekly digest (default Monday)",
        time="Local time HH:MM",
        timezone="IANA zone, e.g. Europe/Berlin",
        topics="Focus topics, e.g. rocm",
        language="The report's language",
        repository="owner/name",
        writer="Who writes the report",
    )
    @app_commands.choices(language=LANGUAGES, writer=WRITERS, schedule=SCHEDULES, day=DAYS)
    @app_commands.autocomplete(topics=complete_topic, repository=complete_repo)
    @app_commands.default_permissions(manage_channels=True)
    async def subscribe(
        interaction: discord.Interaction[Any],
        schedule: Choice[str] | None = None,
        day: Choice[str] | None = None,
        time: str | None = None,
        timezone: str | None = None,
        topics: str | None = None,
        language: Choice[str] | None = None,
        repository: str | None = None,
        writer: Choice[str] | None = None,
    ) -> None:
        await front.run(
            interaction,
            lambda: subscribe_command(
                time,
                timezone,
                topics,
                _value(language),
                repository,
                _value(writer),
                _value(schedule),
                _value(day),
            ),
            front.manage,
        )

    @app_commands.command(
        name="vllm-unsubscribe",
        description="Stop this channel's scheduled digests (channel managers)",
    )
    @app_commands.describe(repository="Only this repository (default: all)")
    @app_commands.autocomplete(repository=complete_repo)
    @app_commands.default_permissions(manage_channels=True)
    async def unsubscribe(
        interaction: discord.Interaction[Any], repository: str | None = None
    ) -> None:
        await front.run(interaction, lambda: unsubscribe_command(repository), front.manage)

    @app_commands.command(name="vllm-subscriptions", description="This channel's scheduled digests")
    async def subscriptions(interaction: discord.Interaction[Any]) -> None:
        await front.manage(interaction, ListSubscriptionsCommand())

    @app_commands.command(
        name="vllm-settings",
        description="This channel's (or server's) default language, time zone, repository, topics",
    )
    @app_commands.describe(
        scope="This channel (default) or the whole server (Manage Server)",
        language="Default report language",
        timezone="Default IANA zone, e.g. Europe/Berlin",
        repository="Default owner/name",
        topics="Default focus topics, e.g. rocm",
        reset="Clear every default of the scope",
    )
    @app_commands.choices(language=LANGUAGES, scope=SCOPES)
    @app_commands.autocomplete(topics=complete_topic, repository=complete_repo)
    async def settings_(
        interaction: discord.Interaction[Any],
        scope: Choice[str] | None = None,
        language: Choice[str] | None = None,
        timezone: str | None = None,
        repository: str | None = None,
        topics: str | None = None,
        reset: bool = False,
    ) -> None:
        await front.run(
            interaction,
            lambda: settings_command(
                _value(scope), _value(language), timezone, repository, topics, reset
            ),
            front.manage,
        )

    @app_commands.command(name="vllm-help", description="How to use vllm-report")
    async def help_(interaction: discord.Interaction[Any]) -> None:
        await front.help(interaction)

    commands: list[app_commands.Command[Any, Any, None]] = [
        report,
        ask,
        subscribe,
        unsubscribe,
        subscriptions,
        settings_,
        help_,
    ]
    for command in commands:
        tree.add_command(command)


class ReportClient(discord.Client):
    """A gateway client with no privileged intent that can never mention anyone."""

    def __init__(
        self, front: DiscordFrontEnd, *, sync_commands: bool = True, **options: Any
    ) -> None:
        intents = discord.Intents.default()
        intents.message_content = False
        super().__init__(
            intents=intents, allowed_mentions=discord.AllowedMentions.none(), **options
        )
        self.front = front
        self.sync_commands = sync_commands
        self.gateway = Connection()  # up once READY (or RESUMED), down on a disconnect
        self.tree: app_commands.CommandTree[ReportClient] = app_commands.CommandTree(self)
        add_commands(self.tree, front)

    async def setup_hook(self) -> None:
        if self.sync_commands:
            await self.tree.sync()

    async def on_ready(self) -> None:
        self.gateway.up()
        log.info("discord.gateway_ready")

    async def on_resumed(self) -> None:
        self.gateway.up()
        log.info("discord.gateway_resumed")

    async def on_disconnect(self) -> None:
        if self.gateway.is_up:
            log.warning("discord.gateway_disconnected")
        self.gateway.down()

    async def on_message(self, message: discord.Message) -> None:
        if self.user is not None:
            await self.front.on_message(message, self.user)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        component = interaction.type == discord.InteractionType.component
        if component and custom_id(interaction).startswith(PREFIX):
            await self.front.button(interaction)


def build_discord_client(
    front: DiscordFrontEnd,
    settings: DiscordSettings,
    *,
    sync_commands: bool = True,
    **options: Any,
) -> ReportClient:
    """A client of ``front`` for ``settings``' endpoints; run it with
    ``await client.start(token)``.

    ``options`` go to ``discord.Client`` (e.g. ``guild_ready_timeout``).
    """
    point_discord_at(settings.api_url, settings.gateway_url)
    return ReportClient(front, sync_commands=sync_commands, **options)
