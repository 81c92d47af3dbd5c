"""Free-text search terms: whole-word, tolerant of spacing and version suffixes.

``Qwen3.5`` matches "Qwen3.5", "qwen 3.5" and "Qwen3.5-VL" but not "Qwen3.50" or "Qwen3.5B";
``Qwen`` matches "Qwen3.5" (a version may follow a name) but not "Qwenlm"; ``Qwen3`` does not
match "Qwen3.5" (another version); ``model`` matches "models" and ``models`` "[Model]".
Terms in CJK scripts match as substrings, and common Chinese technical words also match their
English names (量化 → quantization), since titles are mostly in English.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from digest.analysis.text import prose_lines
from digest.models import Item

TITLE_WEIGHT = 3.0
LABEL_WEIGHT = 2.0
BODY_WEIGHT = 1.0

_CHUNK = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]")
_SEPARATOR = r"[\s_-]?"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_PLURAL = "(?:e?s)?"

GLOSSARY: dict[str, tuple[str, ...]] = {
    "量化": ("quantization", "quant", "quantized"),
    "投机解码": ("speculative decoding", "spec decode", "speculative"),
    "推测解码": ("speculative decoding", "spec decode", "speculative"),
    "多模态": ("multimodal", "multi-modal"),
    "调度": ("scheduler", "scheduling"),
    "显存": ("memory", "OOM"),
    "内存": ("memory", "OOM"),
    "前缀缓存": ("prefix caching", "prefix cache"),
    "缓存": ("cache", "caching"),
    "专家并行": ("expert parallel", "EP"),
    "张量并行": ("tensor parallel", "TP"),
    "流水线并行": ("pipeline parallel", "PP"),
    "数据并行": ("data parallel", "DP"),
    "分布式": ("distributed",),
    "注意力": ("attention",),
    "算子": ("kernel", "op"),
    "内核": ("kernel",),
    "性能": ("performance", "perf", "throughput", "latency"),
    "吞吐": ("throughput",),
    "延迟": ("latency",),
    "精度": ("accuracy", "precision"),
    "文档": ("docs", "doc", "documentation"),
    "测试": ("test", "CI"),
    "编译": ("compile", "torch.compile"),
    "模型": ("model",),
    "工具调用": ("tool calling", "tool call"),
    "结构化输出": ("structured output",),
    "推理模型": ("reasoning",),
    "长上下文": ("long context",),
    "视觉": ("vision", "VL"),
    "语音": ("audio", "speech"),
    "崩溃": ("crash", "segfault"),
    "报错": ("error",),
    "回归": ("regression",),
    "安装": ("install", "installation"),
    "部署": ("deploy", "deployment"),
}


def is_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character."""
    return _CJK.search(text) is not None


@lru_cache(maxsize=256)
def term_pattern(term: str) -> re.Pattern[str]:
    """The case-insensitive pattern of ``term`` in running text."""
    if is_cjk(term):
        return re.compile(re.escape(term), re.I)
    parts: list[str] = []
    previous = ""
    for chunk in _CHUNK.findall(term.strip()):
        if chunk in " _-":
            if previous and previous != "sep":
                parts.append(_SEPARATOR)
                previous = "sep"
            continue
        if previous and previous != "sep" and (chunk[0].isalnum() and previous[-1].isalnum()):
            parts.append(_SEPARATOR)
        parts.append(re.escape(chunk))
        previous = chunk
    while parts and parts[-1] == _SEPARATOR:
        parts.pop()
    if previous.isalpha() and len(previous) >= 3 and parts:
        # a plural is the same word: "models" matches "[Model]", "model" matches "models"
        plural = len(previous) >= 4 and previous[-1] in "sS" and previous[-2] not in "sS"
        parts[-1] = re.escape(previous[:-1] if plural else previous) + _PLURAL
    body = "".join(parts) or re.escape(term)
    last = term.strip()[-1:] if term.strip() else ""
    # After a name, a version may follow (Qwen -> Qwen3.5); after a version, no more digits.
    tail = r"(?![A-Za-z])" if last.isalpha() else r"(?![A-Za-z0-9])(?!\.[0-9])"
    return re.compile(rf"(?<![A-Za-z0-9]){body}{tail}", re.I)


def spellings(term: str) -> tuple[str, ...]:
    """``term`` and the English names of a Chinese technical word."""
    return (term, *GLOSSARY.get(term, ()))


def mentions(text: str, term: str) -> bool:
    """Whether ``text`` mentions ``term`` (or, for a glossary word, its English name)."""
    return any(term_pattern(word).search(text) is not None for word in spellings(term))


@dataclass(frozen=True, slots=True)
class TermMatch:
    """How strongly an item mentions the searched terms."""

    matched: tuple[str, ...]  # the terms found, in the order searched
    score: float


def match_terms(item: Item, terms: Sequence[str]) -> TermMatch:
    """The terms ``item`` mentions in its number, title, labels or description.

    The description counts only in prose outside form sections (test plans, environments,
    logs), so a model named in a benchmark command does not make a PR about that model.
    """
    body = "\n".join(prose_lines(item.body_excerpt))
    labels = " ".join(item.labels)
    matched: list[str] = []
    score = 0.0
    for term in terms:
        if (term.isdigit() and int(term) == item.number) or mentions(item.title, term):
            weight = TITLE_WEIGHT
        elif labels and mentions(labels, term):
            weight = LABEL_WEIGHT
        elif body and mentions(body, term):
            weight = BODY_WEIGHT
        else:
            continue
        matched.append(term)
        score += weight
    return TermMatch(tuple(matched), score)


def needed(count: int) -> int:
    """How many of ``count`` terms an item must mention when none mentions them all."""
    return max(2, -(-count * 3 // 5))
