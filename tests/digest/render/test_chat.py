"""Long digests for chat: each appendix list cut to its top entries, the rest at a link."""

from __future__ import annotations

import json

from bot.discord import render_discord
from bot.slack.render import render_slack
from digest.codec import decode_digest, encode_digest
from digest.models import BulletList, Link, Paragraph, Text
from digest.render.chat import TOP_ENTRIES, for_chat
from digest.render.json import section_json
from digest.render.markdown import render_markdown
from tests.bot.discord.conftest import synthetic_digest

SITE = "https://reports.example.org"
PAGE = f"{SITE}/vllm-project/vllm/"


def test_full_lists_are_a_clickable_site_link_in_every_renderer() -> None:
    """With a site, "and N more" links to the repository's site page: a link in Markdown,
    Slack and Discord, a ``link`` span in the JSON, and it survives the cache's codec."""
    digest = synthetic_digest(30, "en")
    short = for_chat(digest, SITE)
    appendix = short.section("appendix")
    assert appendix is not None
    lists = [b for b in appendix.blocks if isinstance(b, BulletList)]
    assert lists and all(len(b.items) <= TOP_ENTRIES for b in lists)
    links = [
        s
        for b in appendix.blocks
        if isinstance(b, Paragraph)
        for s in b.spans
        if isinstance(s, Link)
    ]
    assert links and {s.url for s in links} == {PAGE}

    assert f"]({PAGE})" in render_markdown(short)
    assert {"type": "link", "url": PAGE, "text": ""} in [
        span for block in section_json(appendix)["blocks"] for span in block.get("spans", ())
    ]
    slack = json.dumps([m["blocks"] for m in render_slack(digest, site_url=SITE).messages])
    assert f"<{PAGE}|" in slack
    post = render_discord(digest, site_url=SITE)
    discord = "\n".join(e.description or "" for m in post.thread for e in m.embeds)
    assert f"](<{PAGE}>)" in discord
    assert decode_digest(encode_digest(short)) == short


def test_without_a_site_the_full_lists_are_the_command_that_prints_them() -> None:
    """No site: the line names the CLI command as code, and nothing links outside GitHub."""
    short = for_chat(synthetic_digest(30, "en"), None)
    appendix = short.section("appendix")
    assert appendix is not None
    spans = [s for b in appendix.blocks if isinstance(b, Paragraph) for s in b.spans]
    assert not any(isinstance(s, Link) for s in spans)
    assert Text("vllm-report 30d --repo vllm-project/vllm", "code") in spans
