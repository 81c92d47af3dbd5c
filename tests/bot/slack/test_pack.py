"""Packing mrkdwn into Slack-sized blocks and messages without cutting links, words or items."""

from __future__ import annotations

import re

from bot.slack.pack import Unit, UnitKind, pack_blocks, pack_texts, section_block
from bot.slack.render import block_units
from digest.models import BulletList, Inline, ItemRef, Paragraph, Subheading, Text

LINK = re.compile(r"<[^<>]*>")


def _ref(n: int) -> ItemRef:
    return ItemRef(n, f"https://github.com/o/r/pull/{n}", f"title of pull request number {n}")


def test_long_paragraph_splits_between_words_and_links() -> None:
    """A paragraph over 3,000 characters is split only at spaces, never inside a link or word."""
    spans: list[Inline] = []
    for n in range(200):
        spans += [Text(f" lorem ipsum dolorum{n} "), _ref(n)]
    texts = pack_texts(block_units([Paragraph(tuple(spans))]))
    assert len(texts) > 1
    assert all(len(t) <= 3000 for t in texts)
    joined = " ".join(texts)
    assert len(LINK.findall(joined)) == 200
    for n in range(200):
        assert f"dolorum{n} " in joined + " "
    for text in texts:
        assert text.count("<") == text.count(">")


def test_list_items_are_never_cut() -> None:
    """Every bullet lands whole in exactly one block."""
    items = tuple((Text("x" * 50 + f" item{n} "), _ref(n)) for n in range(300))
    texts = pack_texts(block_units([BulletList(items)]))
    bullets = [line for t in texts for line in t.split("\n")]
    assert len(bullets) == 300
    assert all(b.startswith("• ") and b.endswith(">") for b in bullets)
    assert all(len(t) <= 3000 for t in texts)


def test_heading_moves_with_what_follows() -> None:
    """A subheading never ends a block when its list starts the next one."""
    long = tuple((Text("y" * 900),) for _ in range(3))
    texts = pack_texts(block_units([BulletList(long), Subheading("Merged PRs"), BulletList(long)]))
    assert all(not t.rstrip().endswith("*Merged PRs*") for t in texts)
    assert any(t.startswith("*Merged PRs*") for t in texts)


def test_an_unbreakable_word_is_cut_outside_entities() -> None:
    """A single 7,000-character word is cut, but never inside an &amp; entity."""
    word = "a&b" * 2400
    texts = pack_texts([Unit(UnitKind.PARAGRAPH, (word.replace("&", "&amp;"),))])
    assert all(len(t) <= 3000 for t in texts)
    assert "".join(texts) == word.replace("&", "&amp;")
    assert all(not re.search(r"&[a-z]{0,3}$", t) for t in texts)


def test_messages_hold_at_most_fifty_blocks_and_the_text_budget() -> None:
    """Blocks are grouped into messages under the block count and the character budget."""
    small = [section_block("s") for _ in range(120)]
    assert [len(m) for m in pack_blocks(small)] == [50, 50, 20]
    big = [section_block("z" * 2900) for _ in range(10)]
    groups = pack_blocks(big)
    assert all(sum(len(b["text"]["text"]) for b in g) <= 12_000 for g in groups)
    assert sum(len(g) for g in groups) == 10
