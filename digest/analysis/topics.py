"""Focus topics: which items belong to a topic, how strongly, and in which group."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from functools import lru_cache

from digest.analysis.text import (
    PER_TEXT,
    may_hold,
    prose_lines,
    text_lines,
    title_tags,
    without,
    words,
    words_in,
)
from digest.analysis.types import TopicItem, TopicMatch
from digest.models import Item, Topic

LABEL_SCORE = 3.0
TAG_SCORE = 3.0
AUTHOR_SCORE = 2.0
TITLE_SCORE = 2.0
BODY_SCORE = 1.0
EXTRA_WORD_SCORE = 0.25
THRESHOLD = 1.0
LEAD_PROSE_LINES = 3

_FIX_TAGS = frozenset(["bug", "bugfix", "fix", "hotfix", "regression", "crash", "revert"])
_REQUEST_TAGS = frozenset(["rfc", "feature", "feature request", "roadmap", "proposal"])
_PERF_TAGS = frozenset(
    words(
        "perf|performance|kernel|kernels|optimization|attention|quantization|quant|moe"
        "|speculative decoding|spec decode|torch.compile|compile|fusion"
    )
)
_FIX_LABELS = frozenset({"bug", "regression", "crash", "bugfix"})
_REQUEST_LABELS = frozenset({"rfc", "feature request", "enhancement", "new-model", "new model"})
_PERF_LABELS = frozenset({"performance", "perf", "kernel"})
_FIX_WORDS = words(
    "fix|fixes|fixed|fixing|bug|bugs|crash|crashes|crashed|error|errors|fail|fails|failed"
    "|failure|regression|incorrect|wrong|garbage|hang|hangs|NaN|OOM|broken|accuracy"
    "|segfault|illegal memory|mismatch|deadlock|leak"
)
_PERF_WORDS = words(
    "perf|performance|kernel|kernels|fused|fuse|fusion|optimize|optimise|optimization"
    "|optimisation|speed|speedup|faster|throughput|latency|attention|attn|GEMM|MoE|Triton"
    "|CUTLASS|FlashInfer|FlashAttention|AITER|quantization|quantized|FP8|FP4|NVFP4|MXFP4"
    "|INT8|INT4|CUDA graph|CUDA graphs|torch.compile|tuning|tuned"
)


def group_of(item: Item) -> str:
    """performance, fixes or ecosystem: from the title tags, then labels, then title words."""
    return _group(item.title, item.labels)


@lru_cache(maxsize=PER_TEXT)
def _group(title: str, item_labels: tuple[str, ...]) -> str:
    for tag in title_tags(title):
        if tag in _FIX_TAGS:
            return "fixes"
        if tag in _REQUEST_TAGS:
            return "ecosystem"
        if tag in _PERF_TAGS:
            return "performance"
    labels = {label.strip().lower() for label in item_labels}
    if labels & _FIX_LABELS:
        return "fixes"
    if labels & _REQUEST_LABELS:
        return "ecosystem"
    if labels & _PERF_LABELS:
        return "performance"
    if words_in(title, _FIX_WORDS):
        return "fixes"
    if words_in(title, _PERF_WORDS):
        return "performance"
    return "ecosystem"


def _tag_hits(title: str, tags: Iterable[str]) -> list[str]:
    present = set(title_tags(title))
    return [tag for tag in tags if tag.strip("[] ").lower() in present]


def _body_hits(body: str, keywords: Sequence[str]) -> tuple[str, ...]:
    """Keywords that count from the body: two distinct ones outside logs, or one in the lead."""
    found = words_in("\n".join(text_lines(body)), keywords)
    if len(found) >= 2:
        return found
    lead = "\n".join(prose_lines(body)[:LEAD_PROSE_LINES])
    return words_in(lead, keywords)


def match_topic(item: Item, topic: Topic) -> TopicItem | None:
    """How ``item`` belongs to ``topic``, or ``None``.

    Labels and bracketed title tags are strong evidence, so are author patterns and keywords
    in the title; keywords only in the body count when two distinct ones appear outside logs or
    one appears in the first lines of prose, so a stray word in a pasted log does not match.
    The topic's ``ignore`` phrases ("AMD EPYC", the word "instinct") are no keyword evidence.
    """
    found = _evidence(topic, item.title, item.body_excerpt, item.labels, item.author)
    if found is None:
        return None
    score, reasons = found
    return TopicItem(item=item, score=score, group=group_of(item), reasons=reasons)


@lru_cache(maxsize=4 * PER_TEXT)  # an entry per text and focus topic: room for four topics
def _evidence(
    topic: Topic, title: str, body: str, item_labels: tuple[str, ...], author: str
) -> tuple[float, tuple[str, ...]] | None:
    """The score and reasons of an item with these texts in ``topic``; ``None``: too weak."""
    reasons: list[str] = []
    score = 0.0
    wanted = {label.lower() for label in topic.labels}
    labels = [label for label in item_labels if label.lower() in wanted]
    if labels:
        score += LABEL_SCORE
        reasons.extend(f"label:{label}" for label in labels)
    tags = _tag_hits(title, topic.tags)
    if tags:
        score += TAG_SCORE
        reasons.extend(f"tag:{tag}" for tag in tags)
    login = author.lower()
    authors = [p for p in topic.authors if fnmatch.fnmatchcase(login, p.lower())]
    if authors:
        score += AUTHOR_SCORE
        reasons.extend(f"author:{pattern}" for pattern in authors)
    title_words: tuple[str, ...] = ()
    keywords = tuple(topic.keywords)
    if may_hold(title, keywords):
        title_words = words_in(without(title, topic.ignore), keywords)
    if title_words:
        score += TITLE_SCORE + EXTRA_WORD_SCORE * (len(title_words) - 1)
        reasons.extend(f"keyword:{word}" for word in title_words)
    body_words: tuple[str, ...] = ()
    if may_hold(body, keywords):
        body_words = tuple(
            w for w in _body_hits(without(body, topic.ignore), keywords) if w not in title_words
        )
    if body_words:
        score += BODY_SCORE + EXTRA_WORD_SCORE * (len(body_words) - 1)
        reasons.extend(f"body:{word}" for word in body_words)
    if score < THRESHOLD:
        return None
    return score, tuple(reasons)


def match_topics(items: Sequence[Item], topics: Sequence[Topic]) -> tuple[TopicMatch, ...]:
    """Every topic with its matching items, best first (score, then newest)."""
    out: list[TopicMatch] = []
    for topic in topics:
        found = [hit for item in items if (hit := match_topic(item, topic)) is not None]
        found.sort(key=lambda hit: (-hit.score, -hit.item.number))
        out.append(TopicMatch(topic=topic, items=tuple(found)))
    return tuple(out)
