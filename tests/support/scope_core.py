"""The chat core over the two-repository scope rig (``tests.support.scopes``): the
configuration names the scope ``serving`` (both repositories, without dependency bumps)."""

from __future__ import annotations

from bot.commands.runner import ReportCore
from config.settings import AppConfig, load_config
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


def scope_core(rig: ScopeRig, config: AppConfig | None = None) -> ReportCore:
    """A core building through ``rig``'s digest service, its clock after the window."""
    return ReportCore(
        config=config or scope_config(), get_digest=rig.service.get_digest, clock=lambda: NOW
    )
