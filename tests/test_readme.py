"""The README stays true: its examples parse and its commands exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import main
from config.settings import load_config

README = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")


def test_yaml_example_is_a_valid_configuration(tmp_path: Path) -> None:
    """The configuration example in the README loads and defines what it uses."""
    (block,) = re.findall(r"```yaml\n(.*?)```", README, re.S)
    path = tmp_path / "example.yaml"
    path.write_text(block, "utf-8")
    config = load_config(path)
    assert [t.name for t in config.topics_for("vllm-project/vllm")] == ["rocm", "tpu"]
    assert config.subscriptions[0].timezone == "Europe/Berlin"


def test_test_command_is_what_ci_runs() -> None:
    """CI runs the README's test command (pytest) after installing the test extra."""
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text("utf-8")
    assert "pip install -e '.[test]' && pytest" in README
    assert "-e '.[test]'" in ci and re.search(r"^pytest\b", ci, re.M)


@pytest.mark.parametrize(
    "flag",
    ["--repo", "--lang", "--format", "--topic", "--tz", "--day-start", "--writer", "--config"],
)
def test_documented_options_exist(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every option the README documents is accepted by the command line."""
    assert f"`{flag}" in README
    assert main(["--help"]) == 0
    assert flag in capsys.readouterr().out


def test_every_environment_setting_is_documented() -> None:
    """Each environment variable the settings read is named in the README."""
    from config.settings import (
        DiscordSettings,
        GitHubSettings,
        LimitSettings,
        LLMSettings,
        RedisSettings,
        Settings,
        SlackSettings,
    )

    names = []
    for cls in (
        GitHubSettings,
        SlackSettings,
        DiscordSettings,
        LLMSettings,
        LimitSettings,
        RedisSettings,
        Settings,
    ):
        prefix = str(cls.model_config.get("env_prefix", ""))
        for field, info in cls.model_fields.items():
            if isinstance(info.default_factory, type):
                continue  # a nested section, documented by its own variables
            names.append(f"{prefix}{field}".upper())
    missing = [name for name in names if name not in README]
    assert missing == []


def test_the_mcp_client_snippet_runs_the_mcp_command(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's MCP client configuration starts `vllm-report mcp`, which has `--http`."""
    import json

    (block,) = re.findall(r"```json\n(.*?)```", README, re.S)
    server = json.loads(block)["mcpServers"]["vllm-report"]
    assert server["command"] == "vllm-report" and server["args"] == ["mcp"]
    assert main([*server["args"], "--help"]) == 0
    assert "--http PORT" in capsys.readouterr().out


async def test_the_mcp_tools_and_arguments_are_the_servers() -> None:
    """Every tool of the README's MCP table exists with exactly the arguments it lists."""
    from datetime import UTC, datetime

    from bot.mcp import ReportTools
    from bot.mcp.server import build_server

    section = README.split("## MCP server for coding agents", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \|", section, re.M)
    documented = {name: re.findall(r"`(\w+)`(?: \(|,|$)", args) for name, args in rows}
    tools = ReportTools(
        core=None,  # type: ignore[arg-type]
        store=None,  # type: ignore[arg-type]
        sync=None,  # type: ignore[arg-type]
        config=load_config(),
        clock=lambda: datetime.now(UTC),
    )
    listed = await build_server(tools).list_tools()
    assert {t.name: sorted(t.input_schema["properties"]) for t in listed} == {
        name: sorted(args) for name, args in documented.items()
    }
