"""The site's output directory: written whole into a temporary sibling, then swapped in.

An interrupted build leaves the previous site as it was; the next build cleans up after it.
The manifest records each page's content hash, so an unchanged page is copied, not rendered.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

DayRecord = dict[str, Any]  # {"counts": {...}, "summary": "..."}, as JSON

MANIFEST = ".vllm-report-site.json"
_VERSION = 1


class Output:
    """A site being built in ``<out>.tmp-<pid>`` beside ``out``, with the previous site's hashes."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self._recover()
        self.tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir(parents=True)
        (
            self.previous,
            self.previous_days,
            self.previous_repos,
            self.previous_search,
        ) = self._read_manifest()
        self.hashes: dict[str, str] = {}
        self.days: dict[str, DayRecord] = {}
        self.repos: dict[str, DayRecord] = {}  # per repository: the mirror the build read
        self.rendered = 0
        self.reused = 0
        self.pages: set[str] = set()  # the HTML pages of the new site
        self.changed: set[str] = set()  # those new or unlike the previous site's
        self.search: dict[str, str] = {}  # each search index part's folder: its mark
        self.indexed: list[str] = []  # the parts this build indexed (the rest carried over)

    def _recover(self) -> None:
        """Finish or undo what an interrupted build left: stray temporaries, a site set aside."""
        parent = self.out.parent
        parent.mkdir(parents=True, exist_ok=True)
        for stray in parent.glob(f".{self.out.name}.tmp-*"):
            shutil.rmtree(stray, ignore_errors=True)
        for old in sorted(parent.glob(f".{self.out.name}.old-*")):
            if not self.out.exists():
                old.rename(self.out)
            else:
                shutil.rmtree(old, ignore_errors=True)

    def _read_manifest(
        self,
    ) -> tuple[dict[str, str], dict[str, DayRecord], dict[str, DayRecord], dict[str, str]]:
        try:
            data = json.loads((self.out / MANIFEST).read_text("utf-8"))
        except (OSError, ValueError):
            return {}, {}, {}, {}
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            return {}, {}, {}, {}
        return (
            _strings(data.get("pages")),
            _records(data.get("days")),
            _records(data.get("repos")),
            _strings(data.get("search")),
        )

    def record_day(self, key: str, record: DayRecord) -> None:
        """Remember a day of the new site (its counts and summary) for the next build's index."""
        self.days[key] = record

    def unchanged(self, path: str, digest_hash: str) -> bool:
        """Copy ``path`` from the previous site when its hash matches; whether it did."""
        if self.previous.get(path) != digest_hash:
            return False
        source = self.out / path
        if not source.is_file():
            return False
        target = self.tmp / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        self.pages.add(path)
        self.hashes[path] = digest_hash
        self.reused += 1
        return True

    def write(self, path: str, content: str | bytes, digest_hash: str | None = None) -> None:
        """Write ``path`` of the new site (a hash makes it reusable by the next build)."""
        target = self.tmp / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        target.write_bytes(data)
        if path.endswith(".html"):
            self.pages.add(path)
            before = self.out / path
            if not before.is_file() or before.read_bytes() != data:
                self.changed.add(path)
        if digest_hash is not None:
            self.hashes[path] = digest_hash
            self.rendered += 1

    def has_previous(self, path: str) -> bool:
        return path in self.previous and (self.out / path).is_file()

    def keep_previous(self, path: str) -> None:
        """Carry a page of the previous site over unchanged (its day cannot be rebuilt now)."""
        self.unchanged(path, self.previous[path])

    def keep_previous_folder(self, folder: str, pages: frozenset[str]) -> bool:
        """Carry ``folder`` of the previous site over when it is made from ``pages`` alone and
        none of them changed (as a part of the search index is); whether it did."""
        source = self.out / folder
        if pages & self.changed or not source.is_dir():
            return False
        shutil.copytree(source, self.tmp / folder)
        return True

    def commit(self) -> None:
        """Write the manifest and swap the new site in place of the old one."""
        manifest = {
            "version": _VERSION,
            "pages": dict(sorted(self.hashes.items())),
            "days": dict(sorted(self.days.items())),
            "repos": dict(sorted(self.repos.items())),
            "search": dict(sorted(self.search.items())),
        }
        self.write(MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        old = self.out.with_name(f".{self.out.name}.old-{os.getpid()}")
        if self.out.exists():
            self.out.rename(old)
        self.tmp.rename(self.out)
        shutil.rmtree(old, ignore_errors=True)

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def _records(raw: object) -> dict[str, DayRecord]:
    if not isinstance(raw, dict):
        return {}
    return {str(k): v for k, v in raw.items() if isinstance(v, dict)}


def _strings(raw: object) -> dict[str, str]:
    if not isinstance(raw, dict):
        return {}
    return {str(k): str(v) for k, v in raw.items()}
