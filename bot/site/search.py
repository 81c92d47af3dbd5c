"""Full-text search of the site: Pagefind's index, built from the static pages alone, in parts.

The day pages of each repository (or scope) are indexed by period: a month of the latest year,
or a whole earlier year, each its own Pagefind bundle under ``pagefind-parts/``; every other
page (topics) goes into the main bundle, ``pagefind/``, whose UI merges the parts. A rebuild
indexes again only the parts whose pages changed, so a new day costs its month's pages, not
the archive's.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pagefind.service import get_executable

from bot.site.output import Output

log = logging.getLogger(__name__)

TIMEOUT = 120.0
MAIN = "pagefind"  # the main bundle, with the UI's scripts
PARTS = "pagefind-parts"
BODY = b"data-pagefind-body"  # the pages Pagefind indexes carry it
UI_FILES = (  # the UI's own files: a part is searched through the main bundle's
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-highlight.js",
)
_DAY = re.compile(r"(\d{4})-(\d{2})-\d{2}")


@dataclass(frozen=True, slots=True)
class Part:
    """One bundle of the index: where it lives in the site and the pages it holds."""

    folder: str  # "pagefind", "pagefind-parts/vllm-project-vllm-2026-03-1a2b3c"
    pages: frozenset[str]

    @property
    def mark(self) -> str:
        """What the part is a function of, besides its pages' bytes: their list."""
        return hashlib.sha256("\n".join(sorted(self.pages)).encode()).hexdigest()[:16]


def plan(pages: Iterable[str]) -> tuple[Part, ...]:
    """The index's parts for the site's HTML ``pages``: the main one first, then each
    subject's periods, oldest first."""
    days: dict[tuple[str, str], set[str]] = {}
    latest: dict[str, str] = {}
    rest: set[str] = set()
    for page in pages:
        found = _day_page(page)
        if found is None:
            rest.add(page)
            continue
        base, year, month = found
        latest[base] = max(latest.get(base, year), year)
        days.setdefault((base, f"{year}-{month}"), set()).add(page)
    periods: dict[tuple[str, str], set[str]] = {}
    for (base, month), held in days.items():
        period = month if month[:4] == latest[base] else month[:4]
        periods.setdefault((base, period), set()).update(held)
    parts = [Part(MAIN, frozenset(rest))]
    for (base, period), held in sorted(periods.items()):
        parts.append(Part(f"{PARTS}/{_slug(base, period)}", frozenset(held)))
    return tuple(parts)


def _day_page(page: str) -> tuple[str, str, str] | None:
    """``(base, year, month)`` of a day page (``owner/name/2026-03-10/zh/index.html``)."""
    parts = page.split("/")
    if len(parts) != 5 or parts[-1] != "index.html":
        return None
    matched = _DAY.fullmatch(parts[2])
    if matched is None:
        return None
    return f"{parts[0]}/{parts[1]}", matched[1], matched[2]


def _slug(base: str, period: str) -> str:
    readable = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")
    exact = hashlib.sha256(base.lower().encode()).hexdigest()[:6]
    return f"{readable}-{period}-{exact}"


def bundles(parts: Iterable[Part]) -> tuple[str, ...]:
    """The folders the search page merges into the main bundle's results."""
    return tuple(p.folder for p in parts if p.folder != MAIN)


async def index_site(output: Output, parts: Iterable[Part]) -> bool:
    """Index the site being built in ``output`` part by part, each part whose pages are the
    previous site's, byte for byte, carried over; whether the whole index is there.

    The binary is the ``pagefind`` package's extended one, which segments Chinese. A missing
    or failing Pagefind leaves the site without search, never without reports.
    """
    binary = get_executable()
    if binary is None:
        log.warning("site.search_unavailable", extra={"reason": "no pagefind binary"})
        return False
    for part in parts:
        if output.previous_search.get(part.folder) == part.mark and output.keep_previous_folder(
            part.folder, part.pages
        ):
            output.search[part.folder] = part.mark
            continue
        if not await _index(Path(binary), output.tmp, part):
            return False
        output.search[part.folder] = part.mark
        output.indexed.append(part.folder)
    log.info("site.search_indexed", extra={"parts": len(output.indexed)})
    return True


async def _index(binary: Path, site: Path, part: Part) -> bool:
    """Run Pagefind over ``part``'s indexable pages of ``site``, linked into a staging tree
    with the site's paths (its results link where the pages are)."""
    with tempfile.TemporaryDirectory(dir=site.parent, prefix=f".{site.name}.search-") as stage:
        for page in part.pages:
            source = site / page
            if BODY not in source.read_bytes():
                continue
            target = Path(stage, page)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
        done = await _run(binary, Path(stage), site / part.folder)
    if done and part.folder != MAIN:
        for name in UI_FILES:
            (site / part.folder / name).unlink(missing_ok=True)
    return done


async def _run(binary: Path, stage: Path, bundle: Path) -> bool:
    try:
        process = await asyncio.create_subprocess_exec(
            str(binary),
            "--site",
            str(stage),
            "--output-path",
            str(bundle),
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
    _sort_entry(bundle / "pagefind-entry.json")
    return True


def _sort_entry(path: Path) -> None:
    """Sort Pagefind's language list (its order varies): the same site, the same bytes."""
    try:
        entry = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return
    path.write_text(json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
