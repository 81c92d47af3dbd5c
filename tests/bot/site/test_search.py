"""The search index in parts: a day page's period decides its bundle, and a rebuild runs
Pagefind again only over the parts whose pages changed (the real Pagefind binary)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import bot.site.search as search
from bot.site.output import Output
from bot.site.search import MAIN, PARTS, UI_FILES, bundles, index_site, plan

BASE = "vllm-project/vllm"
DAYS = ("2025-11-30", "2025-12-31", "2026-01-30", "2026-02-01", "2026-02-02")


def _page(day: str, words: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><title>t</title></head><body>'
        f"<main data-pagefind-body><h1>{day}</h1><p>{words}</p></main></body></html>"
    )


def _pages(words: dict[str, str]) -> dict[str, str]:
    out = {f"{BASE}/{day}/en/index.html": _page(day, words.get(day, "rocm")) for day in DAYS}
    out[f"{BASE}/index.html"] = "<html><body><p>the index</p></body></html>"
    out[f"{BASE}/topics/rocm/en/index.html"] = _page("topic", "rocm topic")
    out[f"{BASE}/2026/02/en/index.html"] = "<html><body><p>February</p></body></html>"
    return out


def test_days_of_the_latest_year_by_month_earlier_years_whole() -> None:
    """2025's days share one bundle, 2026's have one per month; every other page is the main
    bundle's (month and topic pages too), and a scope's days are apart from a repository's."""
    parts = plan([*_pages({}), "scopes/serving/2026-02-01/zh/index.html"])
    assert parts[0].folder == MAIN
    assert parts[0].pages == {
        f"{BASE}/index.html",
        f"{BASE}/topics/rocm/en/index.html",
        f"{BASE}/2026/02/en/index.html",
    }
    held = {p.folder.removeprefix(f"{PARTS}/").rsplit("-", 1)[0]: p.pages for p in parts[1:]}
    assert held == {
        "scopes-serving-2026-02": {"scopes/serving/2026-02-01/zh/index.html"},
        "vllm-project-vllm-2025": {
            f"{BASE}/2025-11-30/en/index.html",
            f"{BASE}/2025-12-31/en/index.html",
        },
        "vllm-project-vllm-2026-01": {f"{BASE}/2026-01-30/en/index.html"},
        "vllm-project-vllm-2026-02": {
            f"{BASE}/2026-02-01/en/index.html",
            f"{BASE}/2026-02-02/en/index.html",
        },
    }
    assert bundles(parts) == tuple(p.folder for p in parts[1:])


def _build(out: Path, words: dict[str, str]) -> bool:
    output = Output(out)
    for path, html in _pages(words).items():
        output.write(path, html)
    indexed = asyncio.run(index_site(output, plan(output.pages)))
    output.commit()
    return indexed


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The bundles Pagefind is run for."""
    seen: list[str] = []
    real = search._run

    async def counted(binary: Path, stage: Path, bundle: Path) -> bool:
        seen.append(bundle.name if bundle.name == MAIN else bundle.name.rsplit("-", 1)[0])
        return await real(binary, stage, bundle)

    monkeypatch.setattr(search, "_run", counted)
    return seen


def test_a_rebuild_indexes_only_the_changed_parts(tmp_path: Path, runs: list[str]) -> None:
    """Built whole, rebuilt unchanged (nothing indexed, the index byte for byte the same),
    then with one February day's words changed: only February's bundle is indexed again."""
    out = tmp_path / "site"
    assert _build(out, {})
    assert sorted(runs) == sorted(
        [MAIN, "vllm-project-vllm-2025", "vllm-project-vllm-2026-01", "vllm-project-vllm-2026-02"]
    )
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and "pagefind" in str(p)}
    runs.clear()
    assert _build(out, {})
    assert runs == []
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and "pagefind" in str(p)}
    assert after == before
    assert _build(out, {"2026-02-02": "gfx942 kernels"})
    assert runs == ["vllm-project-vllm-2026-02"]
    manifest = json.loads((out / ".vllm-report-site.json").read_text("utf-8"))
    assert set(manifest["search"]) == {p.folder for p in plan(_pages({}))}


def test_a_part_holds_its_index_without_the_ui(tmp_path: Path) -> None:
    """Each part has its own entry and index files but not the UI (the main bundle's merges
    it); the main bundle has both. A page without Pagefind's body mark is not indexed."""
    out = tmp_path / "site"
    assert _build(out, {})
    parts = plan(_pages({}))
    for part in parts[1:]:
        folder = out / part.folder
        assert (folder / "pagefind-entry.json").is_file() and (folder / "pagefind.js").is_file()
        assert not any((folder / name).exists() for name in UI_FILES)
        entry = json.loads((folder / "pagefind-entry.json").read_text("utf-8"))
        pages = sum(lang["page_count"] for lang in entry["languages"].values())
        assert pages == len(part.pages)
    main = json.loads((out / MAIN / "pagefind-entry.json").read_text("utf-8"))
    assert sum(lang["page_count"] for lang in main["languages"].values()) == 1  # the topic
    assert (out / MAIN / "pagefind-ui.js").is_file()


def test_no_pagefind_means_no_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the binary the site is built and says it has no search."""
    monkeypatch.setattr(search, "get_executable", lambda: None)
    out = tmp_path / "site"
    assert not _build(out, {})
    assert (out / BASE / "2026-02-02" / "en" / "index.html").is_file()
    assert not (out / MAIN).exists()
