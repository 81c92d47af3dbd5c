"""The core stays platform-free: importing it pulls in no chat SDK."""

from __future__ import annotations

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
