"""Packing blocks into chunks: never a cut link, word or list item."""

from __future__ import annotations

from bot.discord.pack import pack, units, wrap
from digest.models import BulletList, ItemRef, Paragraph, Subheading, Text, UserRef
from tests.support.discord_markdown import render_spans


def _item(n: int) -> tuple[ItemRef | Text | UserRef, ...]:
    return (
        ItemRef(n, f"https://github.com/o/r/pull/{n}", f"Fix number {n} of the scheduler"),
        Text(" — "),
        UserRef(f"dev{n}", f"https://github.com/dev{n}"),
    )


def test_list_items_stay_whole_across_chunks() -> None:
    """A long list splits between items; every item appears exactly once, intact."""
    items = tuple(_item(n) for n in range(1, 301))
    chunks = pack(units((Subheading("New PRs (300)"), BulletList(items))), 2000)
    assert len(chunks) > 5
    assert all(len(c) <= 2000 for c in chunks)
    lines = [line for c in chunks for line in c.split("\n") if line.startswith("- ")]
    assert lines == [f"- {render_spans(i)}" for i in items]
    assert chunks[0].startswith("**New PRs (300)**\n- ")


def test_long_paragraph_breaks_between_words_and_links() -> None:
    """A paragraph longer than the budget breaks only at spaces, never inside a link."""
    spans: list[ItemRef | Text] = []
    for n in range(200):
        spans += [Text(f" word{n} and "), ItemRef(n, f"https://github.com/o/r/issues/{n}", "t")]
    chunks = pack(units((Paragraph(tuple(spans)),)), 500)
    assert all(len(c) <= 500 for c in chunks)
    assert " ".join(chunks).split() == render_spans(tuple(spans)).split()
    for chunk in chunks:
        assert chunk.count("[") == chunk.count("](<")


def test_subheading_is_kept_with_what_follows() -> None:
    """A subheading never ends a chunk on its own."""
    blocks = (Paragraph((Text("x" * 90),)), Subheading("Fixes"), Paragraph((Text("y" * 50),)))
    chunks = pack(units(blocks), 100)
    assert chunks == ["x" * 90, "**Fixes**\n" + "y" * 50]


def test_an_oversized_word_is_split_as_a_last_resort() -> None:
    """A single token longer than the budget is split without breaking an escape."""
    pieces = wrap(("a" * 9 + "\\_" + "b" * 9,), 10)
    assert pieces == ["a" * 9, "\\_" + "b" * 8, "b"]
