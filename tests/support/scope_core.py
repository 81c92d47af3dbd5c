"""The chat core over the two-repository scope rig (``tests.support.scopes``): the
configuration names the scope ``serving`` (both repositories, without dependency bumps), in
memory or as a YAML file for a server process."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.commands.runner import ReportCore
from config.settings import AppConfig, load_config
from tests.fakes.github import Row
from tests.support import scopes
from tests.support.scopes import NOW, SGLANG, VLLM, ScopeRig

SERVING = {
    "repos": [VLLM, SGLANG],
    "display_name": "Serving",
    "topics": ["rocm"],
    "exclude": {"labels": ["dependencies"], "authors": ["*[bot]"]},
}


def scope_config() -> AppConfig:
    """The default configuration with the scopes ``serving`` and ``engines`` (no filters)."""
    base = load_config().model_dump(mode="json")
    engines = {"repos": [VLLM, SGLANG], "topics": ["rocm"]}
    return AppConfig.model_validate({**base, "scopes": {"serving": SERVING, "engines": engines}})


def scope_yaml(path: Path) -> Path:
    """``path`` holding the configuration's ``scopes`` (``serving`` alone) as YAML."""
    path.write_text(yaml.safe_dump({"scopes": {"serving": SERVING}}))
    return path


def scope_core(rig: ScopeRig, config: AppConfig | None = None) -> ReportCore:
    """A core building through ``rig``'s digest service, its clock after the window."""
    return ReportCore(
        config=config or scope_config(), get_digest=rig.service.get_digest, clock=lambda: NOW
    )


def scope_rows() -> dict[str, tuple[list[Row], list[Row]]]:
    """The rig's issue and comment rows of each repository, for a fake GitHub of one's own."""
    return scopes._rows()
