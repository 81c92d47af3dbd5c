"""The digest cache codec: lossless and versioned."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from config.settings import load_config
from digest.analysis.analyze import analyze
from digest.analysis.types import WindowData
from digest.codec import CODEC_VERSION, CodecError, decode_digest, encode_digest
from digest.github.parse import comment_from_api, item_from_api
from digest.models import (
    BulletList,
    Counts,
    Digest,
    ItemRef,
    Lang,
    Paragraph,
    Section,
    Subheading,
    Text,
    Usage,
    UserRef,
    Window,
)
from digest.writers.template import TemplateWriter
from tests.support.synthetic import DEFAULT_NOW, generate

REPO = "vllm-project/vllm"
START = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)


def sample(**changes: object) -> Digest:
    """A digest with every kind of block and span, untrusted text included."""
    spans = (
        Text("新 Issue <!channel> & *bold*", "bold"),
        ItemRef(36512, "https://github.com/vllm-project/vllm/pull/36512", "[ROCm] Fix MI300X"),
        Text(" by ", "plain"),
        UserRef("someone-amd", "https://github.com/someone-amd"),
        Text("`code`", "code"),
        Text("why", "italic"),
    )
    base = Digest(
        repo="vllm-project/vllm",
        window=Window(START, START + timedelta(days=1), "Asia/Shanghai", "2026-03-10", False),
        lang=Lang.ZH,
        counts=Counts(38, 28, 115, 34, 42),
        sections=(
            Section("summary", "📊 每日开发状态摘要", (Paragraph(spans),), "llm:qwen"),
            Section(
                "topic:rocm",
                "🎯 AMD/ROCm 生态相关动态",
                (
                    Subheading("性能与内核"),
                    BulletList((spans[:2], (ItemRef(1, "https://x/1"),), ())),
                    Paragraph(()),
                ),
            ),
            Section("appendix", "📋 附录", ()),
        ),
        generated_at=datetime(2026, 3, 11, 11, 21, 5, 123456, tzinfo=timezone(timedelta(hours=8))),
        synced_at=START + timedelta(days=1, seconds=3),
        repo_url="https://github.com/vllm-project/vllm",
        display_name="vLLM",
        usage=Usage(1200, 345),
        notes=("hot discussions unavailable: timeout",),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "digest",
    [sample(), sample(synced_at=None, usage=Usage(), notes=(), sections=()), sample(behind=True)],
    ids=["full", "bare", "behind"],
)
def test_round_trip_is_lossless(digest: Digest) -> None:
    """Decoding the encoded digest gives an equal digest, spans and styles included."""
    again = decode_digest(encode_digest(digest))
    assert again == digest
    assert again.generated_at.utcoffset() == digest.generated_at.utcoffset()
    assert again.section("topic:rocm") == digest.section("topic:rocm")


@pytest.mark.parametrize("lang", list(Lang))
def test_the_language_round_trips_as_a_language(lang: Lang) -> None:
    """The stored language is its code and decodes back as the language, not a string."""
    payload = encode_digest(sample(lang=lang))
    assert json.loads(payload)["lang"] == lang.value
    assert decode_digest(payload).lang is lang


def test_payload_is_versioned_json() -> None:
    """The payload is ASCII JSON that names its codec and schema versions: text beyond ASCII
    (Chinese titles, emoji) is escaped and decodes back as written."""
    payload = encode_digest(sample())
    data = json.loads(payload)
    assert payload.isascii()
    assert data["codec"] == CODEC_VERSION
    assert data["schema_version"] == sample().schema_version
    assert data["sections"][0]["title"] == "📊 每日开发状态摘要"


@pytest.mark.parametrize(
    "payload",
    [
        "not json",
        "[]",
        json.dumps({"codec": CODEC_VERSION + 1}),
        encode_digest(sample()).replace('"schema_version":1', '"schema_version":99'),
        encode_digest(sample()).replace('["h",', '["video",'),
        encode_digest(sample()).replace("[2,", "[7,"),
        encode_digest(sample()).replace('["h",', '["h"],["h",'),
        encode_digest(sample()).replace('"lang":"zh",', ""),
        encode_digest(sample()).replace('"lang":"zh",', '"lang":"fr",'),
    ],
    ids=["garbage", "list", "codec", "schema", "block", "span", "short", "missing", "language"],
)
def test_foreign_payloads_are_rejected(payload: str) -> None:
    """Anything but this codec's own payload raises CodecError (a cache miss)."""
    with pytest.raises(CodecError):
        decode_digest(payload)


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_template_digest_round_trips(lang: str) -> None:
    """A full template-written digest of a synthetic vLLM-sized day survives the codec."""
    data = generate(days=1, now=DEFAULT_NOW, seed=1, repo=REPO)
    start, end = data.day(0)
    window = Window(start, end, "Asia/Shanghai", "today", ends_now=True)
    items = tuple(item_from_api(row, REPO) for row in data.issues)
    comments = tuple(comment_from_api(row, REPO) for row in data.comments)
    window_data = WindowData(REPO, f"https://github.com/{REPO}", window, items, comments)
    analysis = analyze(window_data, load_config().topics_for(REPO))
    written = await TemplateWriter().write(analysis, lang)
    digest = Digest(
        REPO,
        window,
        lang,
        analysis.counts,
        written.sections,
        DEFAULT_NOW,
        DEFAULT_NOW,
        f"https://github.com/{REPO}",
    )
    assert decode_digest(encode_digest(digest)) == digest
