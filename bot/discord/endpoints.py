"""Where discord.py connects: the REST and gateway base URLs (settings, for proxies and tests)."""

from __future__ import annotations

import discord.gateway
import discord.http
import yarl

DEFAULT_API_URL = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"


def point_discord_at(api_url: str | None, gateway_url: str | None) -> tuple[str, str]:
    """Send discord.py's REST calls to ``api_url`` and open its gateway at ``gateway_url``.

    discord.py builds every REST URL, interaction callbacks and webhooks included, from the class
    attribute ``discord.http.Route.BASE``, and ``Client.connect`` opens the gateway at
    ``DiscordWebSocket.DEFAULT_GATEWAY`` (it does not ask ``GET /gateway/bot``; a resume uses the
    ``resume_gateway_url`` of READY). Both are class attributes, so the setting is process-wide.
    ``None`` means Discord's own endpoint. Returns the previous (api_url, gateway_url).
    """
    previous = (discord.http.Route.BASE, str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY))
    discord.http.Route.BASE = (api_url or DEFAULT_API_URL).rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url or DEFAULT_GATEWAY_URL)
    return previous
