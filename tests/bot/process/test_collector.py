"""The collector's pace: set by the ``vllm-report`` program, in a process of its own."""

from __future__ import annotations

import subprocess
import sys

from bot.process.collector import THRESHOLDS
from tests.support.paths import ROOT

_PROGRAM = """
import gc, sys
import bot.cli as cli

def main():
    print(gc.get_threshold(), gc.get_freeze_count() > 0)
    return 7

cli.main = main
sys.exit(cli.run())
"""


def test_the_program_collects_at_its_own_pace() -> None:
    """``vllm-report`` raises the collector's thresholds and freezes its start-up objects
    before it runs the command, and exits with the command's code."""
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 7, done.stderr
    assert done.stdout.strip() == f"{THRESHOLDS} True"
    assert THRESHOLDS[0] > 700  # the interpreter's default
