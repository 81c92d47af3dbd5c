"""Search terms match whole words, tolerant of spacing and version suffixes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from digest.ask.terms import match_terms, mentions
from digest.models import Item, ItemKind, ItemState

T = datetime(2026, 3, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "term", "found"),
    [
        ("Fix Qwen3.5 MoE loading", "Qwen3.5", True),
        ("Support qwen 3.5 on TPU", "Qwen3.5", True),
        ("[Model] Qwen3.5-VL support", "Qwen3.5", True),
        ("Qwen3.5-397B-A17B hangs", "qwen 3.5", True),
        ("Qwen3.50 is not a thing", "Qwen3.5", False),
        ("Qwen3.5B", "Qwen3.5", False),
        ("Qwen3.5 is newer", "Qwen3", False),
        ("Qwen3-Next support", "Qwen3", True),
        ("Qwen3.5 is a Qwen", "Qwen", True),
        ("QwenLM org", "Qwen", False),
        ("ownership of blocks", "hip", False),
        ("a new command", "AMD", False),
        ("deepseek_mtp acceptance", "mtp", True),
        ("gpt-oss-120b", "gpt oss", True),
        ("支持量化推理", "量化", True),
        ("[Model] Add Kimi-K2", "models", True),
        ("Two new models", "model", True),
        ("modelscope hub", "model", False),
        ("[Quantization] FP8 MoE", "量化", True),
        ("Speculative decoding with EAGLE-3", "投机解码", True),
    ],
)
def test_mentions(text: str, term: str, found: bool) -> None:
    """Whole words or plurals, any case; a name may carry a version, a version may not grow;
    a Chinese technical word matches its English name."""
    assert mentions(text, term) is found


def _item(title: str, body: str = "", labels: tuple[str, ...] = ()) -> Item:
    return Item(
        repo="o/r",
        number=7,
        kind=ItemKind.PR,
        title=title,
        author="a",
        author_is_bot=False,
        labels=labels,
        state=ItemState.OPEN,
        state_reason=None,
        created_at=T,
        updated_at=T,
        closed_at=None,
        merged_at=None,
        url="https://github.com/o/r/pull/7",
        body_excerpt=body,
    )


def test_title_outweighs_labels_and_description() -> None:
    """A term in the title scores more than one in a label, which beats one in the prose."""
    title = match_terms(_item("Qwen3.5 fix"), ["Qwen3.5"]).score
    label = match_terms(_item("fix", labels=("qwen3.5",)), ["Qwen3.5"]).score
    body = match_terms(
        _item("fix", "This change makes Qwen3.5 load much faster now."), ["Qwen3.5"]
    ).score
    assert title > label > body > 0


def test_test_plans_and_logs_do_not_count() -> None:
    """A model named only in the test plan or a pasted log is not what the item is about."""
    body = "## Test Plan\n\nA serving benchmark with Qwen3.5 on H100 was run here.\n"
    assert match_terms(_item("Speed up the sampler", body), ["Qwen3.5"]).matched == ()


def test_an_item_number_matches_itself() -> None:
    """ "#7" finds item 7."""
    assert match_terms(_item("anything"), ["7"]).matched == ("7",)
