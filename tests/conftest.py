"""Shared test set-up: a scrubbed environment, so no real token or endpoint leaks into a test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

_SCRUBBED_PREFIXES = ("GITHUB_", "SLACK_", "DISCORD_", "LLM_", "VLLM_REPORT_", "REDIS_")
_SCRUBBED = ("OPENAI_API_KEY", "OPENAI_BASE_URL")


@pytest.fixture(autouse=True)
def _scrub_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Remove every project setting from the environment; the mirror goes to a temp file."""
    for name in list(os.environ):
        if name.startswith(_SCRUBBED_PREFIXES) or name in _SCRUBBED:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VLLM_REPORT_DB", str(tmp_path_factory.mktemp("db") / "mirror.sqlite3"))
    yield
