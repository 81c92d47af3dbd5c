"""Trends: names mentioned by at least two items of the window."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from digest.analysis.trends import VOCABULARY, mentions, trends
from tests.support.analysis_sample import make_item, sample_analysis
from tests.support.trends import found_in


def test_a_term_needs_two_items() -> None:
    """A name in one item is not a trend; in two it is, with both items."""
    items = [
        make_item(1, "Qwen3.5 crashes with FP8"),
        make_item(2, "[Perf] Faster Qwen3.5 decode"),
        make_item(3, "DeepSeek-V3.2 MTP acceptance"),
    ]
    found = {t.term: [i.number for i in t.items] for t in trends(items)}
    assert found["Qwen3.5"] == [1, 2]
    assert "DeepSeek-V3.2" not in found
    assert "FP8" not in found


def test_specific_model_names() -> None:
    """Qwen3.5 is not Qwen3, DeepSeek-V3.2 is not DeepSeek-V3; gpt-oss and Llama are found."""
    item = make_item(1, "Qwen3.5 vs DeepSeek-V3.2 on gpt-oss-120b and Llama 4 Scout")
    terms = {t.term for t in mentions(item)}
    assert {"Qwen3.5", "DeepSeek-V3.2", "gpt-oss", "Llama"} <= terms
    assert not {"Qwen3", "DeepSeek-V3"} & terms


def test_an_edited_item_mentions_what_it_now_says() -> None:
    """Mentions are remembered by the item's texts: the same number edited reads anew."""
    item = make_item(1, "Qwen3.5 accuracy")
    assert "Qwen3.5" in {t.term for t in mentions(item)}
    edited = {t.term for t in mentions(replace(item, title="Llama 4 accuracy"))}
    assert "Llama" in edited and "Qwen3.5" not in edited


def test_features_and_hardware() -> None:
    """Features and hardware are recognised with their kind."""
    item = make_item(
        1,
        "MoE with speculative decoding, LoRA, prefix caching and structured output",
        body="Tested on MI300X, H100, B200 and TPU with an FP8 KV cache.",
    )
    kinds = {t.term: t.kind for t in mentions(item)}
    for term in (
        "MoE",
        "speculative decoding",
        "LoRA",
        "prefix caching",
        "structured output",
        "FP8",
        "KV cache",
    ):
        assert kinds[term] == "feature"
    for term in ("MI300X", "H100", "B200", "TPU"):
        assert kinds[term] == "hardware"


def test_no_partial_words() -> None:
    """Words merely containing a name do not mention it (``vision`` is not in ``revision``)."""
    item = make_item(1, "Bump the revision of the moerkit dependency")
    assert {t.term for t in mentions(item)} == set()


def test_sample_trends() -> None:
    """The sample's recurring names: attention backends, ROCm, Qwen3, KV cache, CI, accuracy."""
    analysis = sample_analysis()
    found = {t.term: [i.number for i in t.items] for t in analysis.trends}
    (rocm_match,) = analysis.topics
    # the topic's items, as many as its section counts, the weightiest first
    assert sorted(found["ROCm"]) == sorted(hit.item.number for hit in rocm_match.items)
    assert sorted(found["ROCm"]) == [32492, 33463, 33478, 33492]
    assert sorted(found["KV cache"]) == [33463, 33480]
    assert sorted(found["Qwen3"]) == [32492, 33463]
    assert all(len(items) >= 2 for items in found.values())


def test_at_most_five_themes_each_with_its_weightiest_items_first() -> None:
    """3-5 themes; within each, the most substantial items come first (the sample and a
    busy synthetic day)."""
    from digest.analysis.substance import discussion, substance, template_lines
    from tests.digest.writers.test_template import _synthetic_analysis

    for analysis in (sample_analysis(), _synthetic_analysis()):
        assert 1 <= len(analysis.trends) <= 5
        data = analysis.data
        talk = discussion(data.comments, data.window)
        template = template_lines(analysis.items)
        for trend in analysis.trends:  # a focus topic's theme too
            weights = [substance(item, talk, template) for item in trend.items]
            assert weights == sorted(weights, reverse=True), trend.term


_PIECES = st.sampled_from(
    [
        "Qwen3.5",
        "qwen-3",
        "DEEPSEEK-v3.2",
        "fused_moe",
        "ROCm",
        "throughput",
        "CI/build",
        "ci",
        "precision",
        "ſpec decoding",
        "KV_Cache",
        "Blackwell",
        "sm_90",
        "İntel",
        "ﬁx",
        "MI300X",
        "mi355",
        "json schema",
        "p/d",
        "H100",
        " ",
        "\n",
        "-",
        "_",
        ".",
        "é",
        "数据",
        "K",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    title=st.lists(_PIECES, max_size=8).map("".join),
    body=st.lists(_PIECES, max_size=20).map("".join),
)
def test_mentions_are_what_each_term_finds_on_its_own(title: str, body: str) -> None:
    """One scan per text finds exactly the terms each term's needles and pattern find alone."""
    item = make_item(1, title, body=body)
    text = f"{title}\n{body}"
    alone = tuple(t for t in VOCABULARY if found_in(t, text))
    assert mentions(item) == alone


def test_themes_against_seven_earlier_windows() -> None:
    """A theme absent before is new, one well above its average rises, one near it is steady."""
    from digest.analysis.trends import HISTORY_WINDOWS, against_history, trends
    from tests.support.analysis_sample import make_item as item

    today = [item(n, "[Bug]: Qwen3.5 and MoE fail") for n in range(1, 5)] + [
        item(n, "[Bug]: gpt-oss fails") for n in range(5, 7)
    ]
    earlier = [
        (item(100 + k, "[Bug]: MoE is slow"), item(200 + k, "gpt-oss issue")) for k in range(7)
    ]
    found = {t.term: t for t in against_history(trends(today), earlier)}
    assert found["Qwen3.5"].change == "new"
    assert found["MoE"].change == "rising" and found["MoE"].baseline == 1.0
    assert found["gpt-oss"].change == "steady"
    assert all(
        t.change is None for t in against_history(trends(today), earlier[: HISTORY_WINDOWS - 1])
    )
