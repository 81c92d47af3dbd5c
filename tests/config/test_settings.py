"""Configuration: defaults, YAML overrides and environment settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.settings import Settings, load_config
from digest.errors import ConfigError


def test_default_config_has_vllm_and_the_rocm_topic() -> None:
    """With no file, the default repository is vLLM with the ROCm focus topic."""
    config = load_config()
    assert config.default_repo == "vllm-project/vllm"
    (topic,) = config.topics_for("vllm-project/vllm")
    assert topic.name == "rocm"
    assert "[ROCm]" in topic.tags and "MI300X" in topic.keywords


def test_yaml_overrides_and_adds(tmp_path: Path) -> None:
    """A YAML file adds topics and repositories on top of the defaults."""
    path = tmp_path / "c.yaml"
    path.write_text(
        "default_repo: pytorch/pytorch\n"
        "repos:\n  pytorch/pytorch: {timezone: Europe/Berlin, day_start: '09:00', topics: [tpu]}\n"
        "topics:\n  tpu: {title_en: TPU, title_zh: TPU 动态, keywords: [TPU]}\n",
        "utf-8",
    )
    config = load_config(path)
    assert config.default_repo == "pytorch/pytorch"
    assert [t.name for t in config.topics_for("pytorch/pytorch")] == ["tpu"]
    assert config.topic("rocm").name == "rocm"
    assert config.repo("PyTorch/PyTorch").timezone == "Europe/Berlin"


@pytest.mark.parametrize(
    "text", ["default_repo: [", "- a list", "unknown_key: 1", "default_repo: not-a-repo"]
)
def test_bad_config_files_are_clear_errors(tmp_path: Path, text: str) -> None:
    """Invalid YAML or schema violations raise ConfigError naming the file or field."""
    path = tmp_path / "bad.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "repos:\n  o/r: {timezone: Mars/Olympus}\n",
            "repos.o/r.timezone: unknown timezone 'Mars/Olympus'",
        ),
        ("repos:\n  o/r: {day_start: 7am}\n", "repos.o/r.day_start: bad day start '7am'"),
        (
            "subscriptions:\n  - {platform: slack, channel: C1, time: '25:00'}\n",
            "subscriptions.0.time: bad day start '25:00'",
        ),
        ("topics:\n  rocm: {keywords: ROCm}\n", "topics.rocm.keywords: Input should be"),
    ],
)
def test_bad_values_are_named_on_one_line(tmp_path: Path, text: str, message: str) -> None:
    """A bad timezone, cut-off or field type is refused at load, on one line naming the field."""
    path = tmp_path / "bad.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_unknown_topic_lists_the_configured_ones() -> None:
    """Asking for a topic that does not exist names the ones that do."""
    with pytest.raises(ConfigError, match="rocm"):
        load_config().topic("quantum")


def test_secrets_from_environment_never_print(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens are SecretStr: the settings' repr does not show them."""
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_supersecret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_MODEL", "m")
    settings = Settings()
    assert settings.github.token is not None
    assert settings.github.token.get_secret_value() == "ghp_supersecret"
    assert settings.llm.api_key is not None and settings.llm.configured
    assert "supersecret" not in repr(settings) and "sk-secret" not in repr(settings)
