"""The command line as a real process: ``python -m bot.cli`` over a mirror in a test's folder."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Run:
    code: int
    out: str
    err: str


async def run_cli(
    *args: str,
    env: dict[str, str],
    tmp: Path,
    stdout: int = asyncio.subprocess.PIPE,
    stderr: int = asyncio.subprocess.PIPE,
    python: bool = False,
    unset: Sequence[str] = (),
) -> Run:
    """``python -m bot.cli ARGS``; with ``python``, the leading ``-X`` pair goes to Python;
    the variables ``unset`` left out of its environment."""
    full = {**os.environ, "VLLM_REPORT_DB": str(tmp / "mirror.sqlite3"), **env}
    for name in unset:
        full.pop(name, None)
    options, rest = (list(args[:2]), args[2:]) if python else ([], args)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *options, "-m", "bot.cli", *rest, env=full, stdout=stdout, stderr=stderr
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode is not None
    return Run(proc.returncode, (out or b"").decode(), (err or b"").decode())


def drain(fd: int) -> bytes:
    """Everything written to a pty until its other side closes."""
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)
