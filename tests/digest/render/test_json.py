"""JSON output: the documented, versioned shape of a digest."""

from __future__ import annotations

import dataclasses
import io
import json

from digest.render.json import dumps, to_json, write_json
from digest.render.markdown import render_blocks
from tests.support.analysis_sample import build_digest, sample_analysis

SECTION_IDS = [
    "summary",
    "topic:rocm",
    "hot",
    "trends",
    "key_changes",
    "activity",
    "watch",
    "appendix",
]


def test_top_level_shape() -> None:
    """schema_version, repo, window in UTC with Z, the five counts, sections, lists, provenance."""
    doc = to_json(build_digest(sample_analysis(), "en"))
    assert doc["schema_version"] == 1
    assert doc["repo"] == "vllm-project/vllm"
    assert doc["lang"] == "en"
    assert doc["window"]["start"] == "2026-01-31T03:44:00Z"
    assert doc["window"]["end"] == "2026-02-01T03:44:00Z"
    assert doc["window"]["timezone"] == "Asia/Shanghai"
    assert doc["counts"] == {
        "new_issues": 3,
        "closed_issues": 2,
        "new_prs": 4,
        "merged_prs": 2,
        "closed_unmerged_prs": 0,
    }
    assert [s["id"] for s in doc["sections"]] == SECTION_IDS
    assert doc["provenance"]["writers"] == ["template"]
    assert doc["provenance"]["synced_at"] == "2026-02-01T03:49:00Z"
    assert doc["provenance"]["usage"]["total_tokens"] == 0
    assert doc["notes"] == []


def test_sections_carry_text_blocks_and_cites() -> None:
    """Each section has its title, writer, Markdown text, structured blocks and cited numbers."""
    digest = build_digest(sample_analysis(), "zh")
    doc = to_json(digest)
    hot = doc["sections"][2]
    assert hot["title"] == "💬 高热度讨论分析"
    assert hot["writer"] == "template"
    assert hot["cites"] == [33490]
    assert "cited" not in hot  # one repository: its numbers say it all
    assert hot["text"] == render_blocks(digest.sections[2].blocks)
    kinds = {
        span["type"]
        for block in hot["blocks"]
        if block["type"] == "bullets"
        for entry in block["items"]
        for span in entry
    }
    assert kinds == {"text", "user"}
    items = [span for span in hot["blocks"][0]["spans"] if span["type"] == "item"]
    assert items[0] == {
        "type": "item",
        "number": 33490,
        "url": "https://github.com/vllm-project/vllm/pull/33490",
        "title": "[MoE Refactor] Improve Oracle for Backend Specific Defaults",
    }


def test_lists_match_counts() -> None:
    """Each list has as many items as its count, with number, title, author, url and state."""
    doc = to_json(build_digest(sample_analysis(), "en"))
    for key, value in doc["counts"].items():
        assert len(doc["lists"][key]) == value
    merged = doc["lists"]["merged_prs"][0]
    assert merged["number"] == 32492
    assert merged["author"] == "jennyyyyzhen"
    assert merged["state"] == "closed"
    assert merged["kind"] == "pr"
    assert merged["merged_at"] == "2026-01-31T15:32:44Z"
    assert merged["url"] == "https://github.com/vllm-project/vllm/pull/32492"


def test_lists_fall_back_to_the_appendix() -> None:
    """A digest built without its lists still reports them from its appendix."""
    digest = dataclasses.replace(build_digest(sample_analysis(), "en"), lists=())
    lists = to_json(digest)["lists"]
    assert [i["number"] for i in lists["new_prs"]] == [33463, 33473, 33490, 33492]
    assert lists["new_issues"][0] == {
        "number": 33478,
        "title": "[RFC]: Introduce ATOM as model implementation backend for AMD GPU",
        "url": "https://github.com/vllm-project/vllm/issues/33478",
        "author": "zejunchen-zejun",
    }
    assert lists["closed_unmerged_prs"] == []


def test_dumps_is_valid_utf8_json() -> None:
    """dumps() writes parseable JSON with Chinese kept as is."""
    text = dumps(build_digest(sample_analysis(), "zh"))
    assert "每日开发状态摘要" in text
    assert json.loads(text)["lang"] == "zh"


def test_streamed_json_is_the_same_text() -> None:
    """Written section by section and item by item, the JSON is the text ``dumps`` makes."""
    for lang in ("en", "zh"):
        digest = build_digest(sample_analysis(), lang)
        for shown in (digest, dataclasses.replace(digest, lists=())):
            out = io.StringIO()
            write_json(shown, out)
            assert out.getvalue() == dumps(shown)


def test_people_carry_role_and_affiliation() -> None:
    """A user span of the hot discussions says the person's role (documented fields)."""
    data = to_json(build_digest(sample_analysis(), "en"))
    hot = next(s for s in data["sections"] if s["id"] == "hot")
    users = [
        span
        for block in hot["blocks"]
        for spans in ([block["spans"]] if block["type"] == "paragraph" else block.get("items", []))
        for span in spans
        if span["type"] == "user"
    ]
    assert {
        "type": "user",
        "login": "mgoin",
        "url": "https://github.com/mgoin",
        "role": "maintainer",
    } in users
    assert all("role" in span for span in users)
