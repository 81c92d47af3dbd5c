"""Facts: numbers a text reports and identifiers it names."""

from __future__ import annotations

from digest.analysis.facts import identifiers, measured


def test_before_and_after_columns_of_a_table() -> None:
    """A table with Main and Branch columns gives ``name before → after``, rounded."""
    body = (
        "| Task | Main | Branch | Δ |\n|---|---:|---:|---:|\n"
        "| hellaswag | 0.60496 | 0.26359 | -0.34137 |\n| arc_easy | 0.69781 | 0.24958 | -0.448 |"
    )
    assert measured(body) == ("hellaswag 0.60 → 0.26", "arc_easy 0.70 → 0.25")


def test_prose_changes_metrics_and_amounts() -> None:
    """``from 4.42ms to 3.23ms``, ``TTFT 120 ms`` and ``10–20%`` are found, each once."""
    text = "Kernel time drops from 4.42ms to 3.23ms; TTFT 120 ms; emulation may cost 10–20%."
    assert measured(text) == ("4.42ms → 3.23ms", "TTFT 120 ms", "10–20%")
    assert measured("No numbers here at all.") == ()


def test_identifiers() -> None:
    """Code spans, flags, VLLM_* variables and files are named, each once."""
    text = "Set `--model-impl atom` or VLLM_ROCM_USE_AITER=1; see vllm/platforms/cuda.py."
    assert identifiers(text) == ("--model-impl", "VLLM_ROCM_USE_AITER", "vllm/platforms/cuda.py")
