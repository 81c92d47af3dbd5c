"""Shared pieces of the daily-post and serve tests: a real digest of the sample day."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from config.settings import load_config
from digest.github.parse import comment_from_api, item_from_api
from digest.models import Digest, Window
from digest.schedule import Subscription, run_window
from digest.service import DigestBuilder, DigestRequest
from digest.store.sqlite import SQLiteStore
from digest.writers.template import TemplateWriter

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-2026-01-31.json"
REPO = "vllm-project/vllm"
SCHEDULED = datetime(2026, 2, 1, 3, 21, tzinfo=UTC)  # 11:21 in Shanghai


def sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text("utf-8"))
    return data


async def sample_store() -> SQLiteStore:
    data = sample()
    store = SQLiteStore(":memory:")
    await store.upsert_items([item_from_api(r, REPO) for r in data["issues"]])
    await store.upsert_comments([comment_from_api(r, REPO) for r in data["comments"]])
    return store


def subscription(platform: str = "slack", channel: str = "C0000001", **kw: Any) -> Subscription:
    fields: dict[str, Any] = {
        "platform": platform,
        "channel": channel,
        "repo": REPO,
        "time": "11:21",
        "timezone": "Asia/Shanghai",
    }
    fields.update(kw)
    return Subscription(**fields)


async def sample_digest(window: Window | None = None, lang: str = "en") -> Digest:
    """The template writer's digest of the sample day (or of an empty ``window``)."""
    store = await sample_store()
    try:
        builder = DigestBuilder(
            store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: SCHEDULED
        )
        sub = subscription()
        request = DigestRequest(
            REPO,
            window or run_window(sub, SCHEDULED),
            lang,
            "template",
            load_config().topics_for(REPO),
            display_name="vLLM",
        )
        return await builder.build(request)
    finally:
        await store.close()
