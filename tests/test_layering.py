"""The core stays platform-free: importing it pulls in no chat SDK."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_digest_imports_no_chat_sdk() -> None:
    """Importing every module of digest/ loads neither slack_bolt, slack_sdk nor discord."""
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "digest").rglob("*.py")
        if p.name != "__init__.py"
    )
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = [m for m in ('slack_bolt', 'slack_sdk', 'discord') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == ""


def test_digest_reads_no_environment() -> None:
    """No module of digest/ reads environment variables: settings come from the root."""
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "digest").rglob("*.py")
        if "os.environ" in p.read_text("utf-8") or "getenv(" in p.read_text("utf-8")
    ]
    assert offenders == []


# The stages of the core, lowest first: a module imports only stages before its own.
PIPELINE = (
    "models",
    "errors",
    "scope",
    "state",
    "github",
    "windows",
    "i18n",
    "analysis",
    "spans",
    "mirror",
    "backends",
    "llm",
    "writers",
    "builder",
    "codec",
    "service",
    "render",
    "ask",
    "schedule",
)
FRONT_END_IMPORTS = {"models", "errors", "windows", "i18n", "render"}


def _imports(path: Path) -> set[str]:
    """Every absolute module a file imports, with ``from X import Y`` also as ``X.Y``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _stage(module: str) -> str | None:
    """``digest.mirror.sync`` -> ``mirror``; ``digest`` itself has no stage."""
    parts = module.split(".")
    return parts[1] if parts[0] == "digest" and len(parts) > 1 else None


def _edges(package: str) -> list[tuple[str, str]]:
    """(importing file, imported module) for every file of a package."""
    return [
        (str(p.relative_to(ROOT)), module)
        for p in sorted((ROOT / package).rglob("*.py"))
        for module in sorted(_imports(p))
    ]


def crossings(package: str = "digest") -> list[str]:
    """Every import that breaks a fence, as ``file -> module``."""
    bad = []
    for path, module in _edges(package):
        top = module.split(".")[0]
        own = _stage(".".join(Path(path).with_suffix("").parts))
        target = _stage(module)
        if package == "digest":
            if top in ("bot", "config", "tests"):
                bad.append(f"{path} -> {module}")
            if top in ("sqlite3", "redis") and own != "backends":
                bad.append(f"{path} -> {module}")
            later = own in PIPELINE and target in PIPELINE
            if later and PIPELINE.index(str(target)) > PIPELINE.index(str(own)):
                bad.append(f"{path} -> {module}")
        else:
            if top == "tests":
                bad.append(f"{path} -> {module}")
            front_end = path.startswith(("bot/slack/", "bot/discord/"))
            if front_end and target is not None and target not in FRONT_END_IMPORTS:
                bad.append(f"{path} -> {module}")
    return sorted(set(bad))


# The floors of bot/, lowest first: a module imports bot modules of its own room or of a lower
# floor only; the rooms of one floor do not import each other. The composition root is the top
# but for the command line: it builds what the process runs, and the process imports it not.
BOT_FLOORS: tuple[tuple[str, ...], ...] = (
    ("connection", "listen"),
    ("commands",),
    ("slack", "discord", "site", "ask_cli", "mcp", "mirror_cli"),
    ("process",),
    ("compose",),
    ("cli",),
)


def _room(module: str) -> str | None:
    """``bot.slack.post`` -> ``slack``; ``bot.cli`` -> ``cli``; ``bot`` itself has no room."""
    parts = module.split(".")
    return parts[1] if parts[0] == "bot" and len(parts) > 1 else None


def _floor(room: str) -> int:
    return next(i for i, rooms in enumerate(BOT_FLOORS) if room in rooms)


def upward(package: str = "bot") -> list[str]:
    """Every import in ``package`` of a bot room on its own floor or higher, as
    ``file -> module``."""
    bad = []
    for path, module in _edges(package):
        own = _room(".".join(Path(path).with_suffix("").parts))
        target = _room(module)
        if own is None or target is None or own == target:
            continue
        if _floor(target) >= _floor(own):
            bad.append(f"{path} -> {module}")
    return sorted(set(bad))


def test_floors_cover_the_bot() -> None:
    """Every module and package at the top of bot/ is a room on one of the floors."""
    tops = {p.stem for p in (ROOT / "bot").iterdir() if p.suffix == ".py" or p.is_dir()}
    assert tops - {"__init__", "__pycache__"} == {room for rooms in BOT_FLOORS for room in rooms}


def test_bot_rooms_import_only_lower_floors() -> None:
    """No room of bot/ imports one on its own floor or above: the command line over the
    composition root over the process over the front ends over the commands, one way."""
    assert upward("bot") == []


def test_stages_cover_the_core() -> None:
    """Every module and package at the top of digest/ is a named stage of the pipeline."""
    tops = {p.stem for p in (ROOT / "digest").iterdir() if p.suffix == ".py" or p.is_dir()}
    assert tops - {"__init__", "__pycache__"} <= set(PIPELINE)


def test_core_imports_only_earlier_stages_and_no_edge() -> None:
    """digest/ imports neither bot, config nor tests; only backends/ import sqlite3 or redis;
    no stage imports a later one (so there is no cycle between stages)."""
    assert crossings("digest") == []


def test_front_ends_import_only_the_model_and_renderers() -> None:
    """bot/slack and bot/discord reach the core only through models, errors, windows, i18n and
    render; no module of bot/ imports test support."""
    assert crossings("bot") == []
