"""Kinds: what a PR changes and what an issue is, from tags, verbs and labels."""

from __future__ import annotations

import pytest

from digest.analysis.kinds import kind_of
from tests.support.analysis_sample import make_item


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ('Revert "[Core] Faster scheduler"', "revert"),
        ("[Doc] Explain the ROCm install", "docs"),
        ("[CI/Build] Remove the hardcoded timezone", "ci"),
        ("Update `huggingface-hub` pin", "deps"),
        ("[Perf] Faster FP8 GEMM on MI300X", "perf"),
        ("[MoE Refactor] Improve Oracle for Backend Specific Defaults", "refactor"),
        ("[Bugfix] Handle preemption in the block pool", "fix"),
        ("[Model] Add support for Qwen3.5", "feature"),
    ],
)
def test_pr_kinds(title: str, kind: str) -> None:
    """修复 / 新增 / 性能优化 / 重构 / 回退 / 文档 / CI / 依赖 come from the title."""
    assert kind_of(make_item(1, title, pr=True)) == kind


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("[RFC]: Introduce ATOM as model implementation backend", "rfc"),
        ("[Bug]: Whisper accuracy issue with FA2+CG", "bug"),
        ("[Performance]: Slow prefill on H100", "perf_report"),
        ("[Feature]: Add INT8 Support for KV Cache Quantization", "feature_request"),
        ("[Usage]: How do I serve two LoRAs?", "question"),
    ],
)
def test_issue_kinds(title: str, kind: str) -> None:
    """An issue's template tag tells its kind."""
    assert kind_of(make_item(1, title)) == kind
