"""Reading GitHub text: whole words, tags, logs versus prose, first sentences."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from digest.analysis.text import (
    Needles,
    clean_excerpt,
    first_sentence,
    folded,
    is_log_line,
    may_hold,
    prose_lines,
    text_lines,
    title_tags,
    without,
    words_in,
)


def test_whole_words_ignore_case() -> None:
    """Terms match whole words in any case, and multi-word terms across separators."""
    assert words_in("Runs on rocm and Mi300x", ("ROCm", "MI300X", "HIP")) == ("ROCm", "MI300X")
    assert words_in("ownership chip shipping hipster", ("HIP",)) == ()
    assert words_in("VLLM_ROCM_USE_AITER=1", ("ROCm", "AITER")) == ("ROCm", "AITER")
    assert words_in("enable cuda-graph capture", ("CUDA graph",)) == ("CUDA graph",)


def test_title_tags() -> None:
    """Bracketed tags are read whole and split on / and spaces."""
    assert title_tags("[ROCm][CI/Build] Fix") == ("rocm", "ci/build", "ci", "build")
    assert title_tags("No tags here") == ()


def test_log_lines() -> None:
    """Tracebacks, log records, tables and empty env values are logs; sentences are not."""
    assert is_log_line('  File "/x/y.py", line 3, in f')
    assert is_log_line("INFO 03-10 11:21:00 engine.py:1] started")
    assert is_log_line("ROCM used to build PyTorch: N/A")
    assert is_log_line("| a | b |")
    assert not is_log_line("The server crashes when the batch is large.")


def test_first_sentence_skips_forms_and_greetings() -> None:
    """The first sentence skips template headings, environment sections and greetings."""
    body = (
        "### Your current environment\n\nGPU: H100 on a long line that is not prose at all\n\n"
        "### 🚀 The feature, motivation and pitch\n\n"
        "Hi vLLM team, thanks for vLLM! Request: support INT8 for the KV cache."
    )
    assert first_sentence(body) == "Request: support INT8 for the KV cache."


def test_first_sentence_drops_unknown_references() -> None:
    """Links, mentions and issue numbers outside the window are removed from quotes."""
    body = "Follow-up to #25954: adds a fused pass, see [docs](https://x.y/z) (cc @someone)."
    assert first_sentence(body) == "adds a fused pass, see docs."
    assert "#12" in clean_excerpt("Fixes #12 for good.", frozenset({12}))


_KEYWORDS = ("ROCm", "HIP", "MI300X", "CUDA graph", "torch.compile", "K8s", "数据")
_PIECES = st.sampled_from(
    [
        *_KEYWORDS,
        "rocm",
        "hip",
        "ſ",
        "İ",
        "K",
        "cuda",
        "graph",
        "CUDA_graph",
        "torch",
        ".",
        "ownership",
        " ",
        "\n",
        "-",
        "_",
        "AMD EPYC",
        "    ",
        "ERROR x",
        "é",
        "Graph",
    ]
)


@settings(max_examples=300, deadline=None)
@given(text=st.lists(_PIECES, max_size=25).map("".join))
def test_may_hold_never_misses_a_keyword(text: str) -> None:
    """Where a keyword is found in a text, its lines or its prose, ``may_hold`` says it may be."""
    parts = [text, without(text, ("AMD EPYC",)), "\n".join(text_lines(text))]
    parts.append("\n".join(prose_lines(text)))
    if any(words_in(part, _KEYWORDS) for part in parts):
        assert may_hold(text, _KEYWORDS)


_NEEDLES = ("gpt", "gptq", "hpu", "ci", "cuda", "p/d", "ſ", "数据")


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(st.sampled_from([*_NEEDLES, "a", "thro", "ughput", " ", "q", "K", "İ"])).map(
        "".join
    )
)
def test_needles_find_what_in_finds(text: str) -> None:
    """One pass finds every needle that ``in`` finds, overlapping ones (gpt in gptq) too."""
    needles = Needles({n: n for n in _NEEDLES})
    assert set(needles.values(text)) == {n for n in _NEEDLES if n in text}
    assert needles.any_in(text) is any(n in text for n in _NEEDLES)


def test_no_needles_find_nothing() -> None:
    """Needles made of nothing find nothing, in any text."""
    assert list(Needles[int]({}).values("anything")) == []
    assert not Needles({"": 1}).any_in("anything")


_FOLDED_PATTERNS = ("rocm", "hip", r"(?<![a-z0-9])spec[\s_-]?decod\w*", "k8s", "is", "ci/build")


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(
            ["ROCm", "HİP", "hıp", "ſpec", "decoding", "\u212a8s", "Is", "CI/Build", "é", " "]
        )
    ).map("".join)
)
def test_folded_text_matches_as_ignore_case_does(text: str) -> None:
    """A lower-case pattern finds in the folded text what it finds with ``re.I`` in the text,
    at the same place: İ, ı, ſ and the Kelvin sign fold as ``re.I`` matches them."""
    lowered = folded(text)
    assert len(lowered) == len(text)
    for pattern in _FOLDED_PATTERNS:
        case = re.search(pattern, text, re.I)
        plain = re.search(pattern, lowered)
        assert (case and case.span()) == (plain and plain.span())
