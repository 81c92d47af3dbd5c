"""Topic matching: recall and precision of the default rocm topic, and item groups."""

from __future__ import annotations

from dataclasses import replace

import pytest

from digest.analysis.topics import group_of, match_topic, match_topics
from digest.models import Item
from tests.support.analysis_sample import make_item, rocm, sample_data

CUDA_LOG = "\n".join(
    [
        "I run Llama on 8xH100 and the server dies at startup.",
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3/site-packages/vllm/engine.py", line 12, in run',
        "    torch.cuda.synchronize()",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        *[f"INFO 03-10 11:{i:02d}:00 worker.py:88] step {i} ok on cuda:0" for i in range(40)],
        "WARNING 03-10 11:59:00 platform.py:12] host CPU is AMD, pinning memory anyway",
        *[f"ERROR 03-10 12:{i:02d}:00 engine.py:301] retrying request {i}" for i in range(20)],
    ]
)


@pytest.mark.parametrize(
    ("title", "body"),
    [
        ("Clarify ownership of the KV cache blocks", ""),
        ("Fix the serve command when --port is given", ""),
        ("Detect the chip generation at startup", ""),
        ("Stop shipping the test wheels in the image", ""),
        ("Add a hipster-friendly logo to the docs", ""),
        ("Document AMDAHL's law in the scaling guide", ""),
        ("[Bug]: illegal memory access on H100", CUDA_LOG),
        ("Improve relationship between scheduler and worker", "The command line is long."),
        ("Scheduler leaks blocks", "My first instinct was the scheduler; it leaks every step."),
        ("Torch build is slow on an AMD EPYC CPU host", ""),
        ("Detokenizer is slow on my AMD Ryzen laptop", ""),
    ],
)
def test_trap_words_do_not_match(title: str, body: str) -> None:
    """Look-alike words, AMD host CPUs and a stray AMD in a long CUDA log are not ROCm items."""
    assert match_topic(make_item(1, title, body=body), rocm()) is None


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (make_item(1, "Speed up decode", labels=("rocm",)), "label:rocm"),
        (make_item(2, "[ROCm] Speed up decode"), "tag:[ROCm]"),
        (make_item(3, "[Bugfix][AMD] Fix weight loading"), "tag:[AMD]"),
        (make_item(4, "[AITER] Add fused RMSNorm"), "tag:[AITER]"),
        (make_item(5, "Qwen3.5 decode is slow on MI300X"), "keyword:MI300X"),
        (make_item(6, "hipBLASLt tuning for fp8 GEMM"), "keyword:hipBLASLt"),
        (make_item(7, "Speed up decode", author="tsato-amd"), "author:*-amd"),
        (make_item(10, "Support AMD Instinct GPUs in the installer"), "keyword:Instinct"),
        (make_item(11, "[ROCm] Slow startup on an AMD EPYC host"), "tag:[ROCm]"),
        (
            make_item(8, "Crash at startup", body="Running on ROCm 6.4 the server dies."),
            "body:ROCm",
        ),
        (
            make_item(9, "Crash at startup", body="Logs below.\n\n- GPU: AMD Instinct MI300X"),
            "body:MI300X",
        ),
    ],
)
def test_true_matches(item: Item, reason: str) -> None:
    """Labels, tags, title keywords, -amd authors and clear body evidence all match."""
    hit = match_topic(item, rocm())
    assert hit is not None
    assert reason in hit.reasons


def test_tag_outweighs_stray_body_keyword() -> None:
    """A [ROCm]-tagged item ranks above one whose only evidence is a keyword in its prose."""
    tagged = make_item(1, "[ROCm] Enable fused MoE")
    stray = make_item(2, "Slow startup", body="We also tried on AMD hardware, same result.")
    match = match_topics([stray, tagged], [rocm()])[0]
    assert [hit.item.number for hit in match.items] == [1, 2]


def test_keyword_only_deep_in_the_body_does_not_match() -> None:
    """A single keyword far below the opening prose does not make an item a ROCm item."""
    prose = "\n".join(f"Step {i} of the reproduction does the usual thing here." for i in range(8))
    item = make_item(1, "Slow startup", body=f"{prose}\nIt was also reported on AMD once.")
    assert match_topic(item, rocm()) is None


def test_an_edited_item_is_matched_as_it_now_reads() -> None:
    """Results are remembered by the item's texts, not its number: the same item with a ROCm
    label, then edited to a ROCm title, then with the label removed, is matched each time as
    it reads then."""
    item = make_item(7, "Slow startup", labels=("rocm",))
    first = match_topic(item, rocm())
    assert first is not None and first.reasons == ("label:rocm",)
    edited = match_topic(replace(item, title="Slow startup on MI300X"), rocm())
    assert edited is not None and "keyword:MI300X" in edited.reasons
    assert match_topic(replace(item, labels=()), rocm()) is None
    assert match_topic(item, rocm()) == first


def test_sample_recall_and_precision() -> None:
    """On the real sample exactly the five ROCm items match (by hand: tags, label, title)."""
    # 32492 [ROCM] ..., 33443 [ROCm] AITER ..., 33463 [ROCm][AITER] ..., 33478 label rocm +
    # "AMD GPU" in the title, 33492 [ROCm][CI]; none of the other eight mentions AMD hardware.
    hits = {item.number for item in sample_data().items if match_topic(item, rocm())}
    assert hits == {32492, 33443, 33463, 33478, 33492}


@pytest.mark.parametrize(
    ("title", "labels", "group"),
    [
        ("[ROCm][AITER] KV cache split causes large accuracy regression", (), "fixes"),
        ("[ROCM] Enable aiter attn backend for qwen3-next model", (), "performance"),
        (
            "[RFC]: Introduce ATOM as model implementation backend for AMD GPU",
            ("RFC",),
            "ecosystem",
        ),
        ("[ROCm][CI] Update huggingface-hub pin", (), "ecosystem"),
        ("[Bugfix][Kernel] Fix fused MoE crash", (), "fixes"),
        ("[Perf] Tune fused MoE configs for MI355X", (), "performance"),
        ("Weights fail to load on MI300X", ("bug",), "fixes"),
        ("[Feature]: Support Quark MXFP4 checkpoints", (), "ecosystem"),
    ],
)
def test_groups(title: str, labels: tuple[str, ...], group: str) -> None:
    """Items fall into performance & kernels, fixes & stability or ecosystem & requests."""
    assert group_of(make_item(1, title, labels=labels)) == group
