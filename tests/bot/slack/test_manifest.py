"""The two Slack app manifests: Socket Mode, and HTTP mode with request URLs."""

from __future__ import annotations

from typing import Any

import yaml

from bot.slack.run import EVENTS_PATH
from tests.support.paths import ROOT


def manifest(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "bot" / "slack" / name).read_text("utf-8"))
    return data


def test_http_manifest_uses_request_urls_instead_of_socket_mode() -> None:
    """manifest-http.yaml turns Socket Mode off and sends commands and events to /slack/events."""
    http = manifest("manifest-http.yaml")
    assert http["settings"]["socket_mode_enabled"] is False
    (command,) = http["features"]["slash_commands"]
    urls = [command["url"], http["settings"]["event_subscriptions"]["request_url"]]
    assert all(url.startswith("https://") and url.endswith(EVENTS_PATH) for url in urls)


def test_both_manifests_declare_the_same_app() -> None:
    """Apart from how requests arrive, both manifests ask for the same command, scopes, events."""
    socket, http = manifest("manifest.yaml"), manifest("manifest-http.yaml")
    assert socket["settings"]["socket_mode_enabled"] is True
    del http["features"]["slash_commands"][0]["url"]
    del http["settings"]["event_subscriptions"]["request_url"]
    del http["settings"]["interactivity"]["request_url"]
    http["settings"]["socket_mode_enabled"] = True
    assert http == socket
