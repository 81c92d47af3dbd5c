"""Every message of 1-, 7- and 30-day digests fits Slack's limits; the thread holds the appendix."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.limits import violations
from bot.slack.post import SlackPoster
from bot.slack.render import render_slack
from config.settings import load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.builder import DigestRequest
from digest.github.parse import comment_from_api, item_from_api
from digest.models import Digest, Window
from digest.render.chat import FULL_LISTS_DAYS, TOP_ENTRIES
from tests.bot.slack.conftest import REPO, builder
from tests.fakes.slack import FakeSlack
from tests.support.synthetic import DEFAULT_NOW, generate

NUMBER = re.compile(r"<https://github\.com/vllm-project/vllm/(?:pull|issues)/(\d+)\|")
NUMBER_OF_REST = re.compile(r"and (\d+) more")


async def synthetic_digest(days: int, lang: str) -> Digest:
    """The template digest of the last ``days`` days of synthetic vLLM-sized activity."""
    data = generate(days=days, now=DEFAULT_NOW, seed=1, repo=REPO)
    store = SQLiteStore(":memory:")
    try:
        await store.upsert_items([item_from_api(r, REPO) for r in data.issues])
        await store.upsert_comments([comment_from_api(r, REPO) for r in data.comments])
        window = Window(
            DEFAULT_NOW - timedelta(days=days),
            DEFAULT_NOW,
            "Asia/Shanghai",
            f"{days}d",
            ends_now=True,
        )
        request = DigestRequest(
            repo=REPO,
            window=window,
            lang=lang,
            writer="template",
            topics=load_config().topics_for(REPO),
            display_name="vLLM",
        )
        return await builder(store, DEFAULT_NOW).build(request)
    finally:
        await store.close()


async def _check(days: int, lang: str, fake: FakeSlack, web_client: AsyncWebClient) -> None:
    digest = await synthetic_digest(days, lang)
    post = render_slack(digest)
    parent_ts = await SlackPoster(web_client, pace_s=0).post_thread("C1", post)

    posted = fake.posts
    assert len(posted) == len(post.messages)
    for message in posted:
        assert violations(message) == [], message["text"]
    assert all(p.get("thread_ts") == parent_ts for p in posted[1:])

    appendix = digest.section("appendix")
    assert appendix is not None
    title = appendix.title
    thread = [p for p in posted if p["text"].startswith(title)]
    lines = [
        line
        for p in thread
        for b in p["blocks"]
        if b["type"] == "section"
        for line in b["text"]["text"].split("\n")
    ]
    bullets = [line for line in lines if line.startswith("• ")]
    linked = {int(n) for line in bullets for n in NUMBER.findall(line)[:1]}
    if days <= FULL_LISTS_DAYS:
        assert len(bullets) == sum(digest.counts.as_dict().values())
        assert linked == set(appendix.cites)
        return
    counts = digest.counts.as_dict().values()
    assert len(bullets) == sum(min(n, TOP_ENTRIES) for n in counts)
    rest = [line for line in lines if "the full list" in line]
    assert [int(NUMBER_OF_REST.findall(line)[0]) for line in rest] == [
        n - TOP_ENTRIES for n in counts if n > TOP_ENTRIES
    ]
    assert all(f"`vllm-report 30d --repo {digest.repo}`" in line for line in rest)
    assert len(posted) <= 15


async def test_one_day_digest_fits(fake: FakeSlack, web_client: AsyncWebClient) -> None:
    """A one-day digest: every message within limits, every appendix item in the thread."""
    await _check(1, "en", fake, web_client)


async def test_seven_day_digest_fits(fake: FakeSlack, web_client: AsyncWebClient) -> None:
    """A seven-day digest in Chinese: every message within limits, the whole appendix."""
    await _check(7, "zh", fake, web_client)


@pytest.mark.slow
async def test_thirty_day_digest_fits(fake: FakeSlack, web_client: AsyncWebClient) -> None:
    """A thirty-day digest: at most 15 messages, each list's top items and where the rest are."""
    await _check(30, "en", fake, web_client)


async def test_long_lists_link_the_report_site_when_it_is_configured() -> None:
    """With the site's URL, a long window's lists link to the repository's pages there (the one
    link a digest makes besides its items and people, from the configuration)."""
    digest = await synthetic_digest(8, "en")
    post = render_slack(digest, site_url="https://reports.example.org/")
    text = "\n".join(b["text"]["text"] for m in post.messages for b in m["blocks"] if "text" in b)
    page = "https://reports.example.org/vllm-project/vllm/"
    assert text.count(f"the full list: <{page}|{page}>") == 5
