"""Full-text search of the site: Pagefind's index, built from the static pages alone."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

from pagefind.service import get_executable

log = logging.getLogger(__name__)

TIMEOUT = 120.0


async def index_site(site: Path) -> bool:
    """Run Pagefind (the ``pagefind`` package's extended binary) over ``site``; whether it did.

    The extended binary segments Chinese. A missing or failing Pagefind leaves the site
    without search, never without reports.
    """
    binary = get_executable()
    if binary is None:
        log.warning("site.search_unavailable", extra={"reason": "no pagefind binary"})
        return False
    try:
        process = await asyncio.create_subprocess_exec(
            str(binary),
            "--site",
            str(site),
            "--silent",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    except OSError as exc:
        log.warning("site.search_unavailable", extra={"reason": str(exc)})
        return False
    try:
        output, _ = await asyncio.wait_for(process.communicate(), TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        log.warning("site.search_unavailable", extra={"reason": "pagefind timed out"})
        return False
    if process.returncode != 0:
        text = output.decode("utf-8", "replace").strip()[-500:]
        log.warning("site.search_unavailable", extra={"reason": text or "pagefind failed"})
        return False
    _sort_entry(site / "pagefind" / "pagefind-entry.json")
    return True


def _sort_entry(path: Path) -> None:
    """Sort Pagefind's language list (its order varies): the same site, the same bytes."""
    try:
        entry = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return
    path.write_text(json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
