"""Key changes: merged pull requests ranked by how much they change for users."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from digest.analysis.text import first_sentence, title_tags, words, words_in
from digest.models import Item

KEY_CHANGES_LIMIT = 8

_TAG_SCORES: Mapping[str, float] = {
    **dict.fromkeys(("perf", "performance", "kernel", "kernels"), 3.0),
    **dict.fromkeys(("feature", "model", "new model"), 2.5),
    **dict.fromkeys(
        ("core", "engine", "scheduler", "attention", "quantization", "spec decode", "moe"), 2.0
    ),
    **dict.fromkeys(
        ("v1", "frontend", "api", "sampler", "distributed", "multimodal", "torch.compile"), 1.5
    ),
    **dict.fromkeys(("bugfix", "fix", "bug", "hotfix"), 1.5),
    **dict.fromkeys(("rocm", "amd", "cuda", "tpu", "xpu", "cpu", "hardware"), 0.5),
}
_LOW_TAGS = frozenset(
    words(
        "ci|ci/build|build|doc|docs|documentation|test|tests|testing|misc|chore|typo|deps"
        "|dependencies|lint|style|release|revert"
    )
)
_LABEL_SCORES: Mapping[str, float] = {
    "performance": 2.0,
    "new-model": 2.0,
    "ready": 0.5,
    "documentation": -3.0,
    "ci/build": -3.0,
}
_CORE_WORDS = words(
    "scheduler|engine|attention|KV cache|sampler|executor|worker|model runner|kernel"
    "|kernels|MoE|quantization|FP8|FP4|NVFP4|speculative|CUDA graph|CUDA graphs"
    "|torch.compile|API server|OpenAI|support|enable|add|fused|backend|prefix caching|LoRA"
    "|throughput|latency|memory"
)
_LOW_WORDS = words(
    "typo|typos|bump|pin|readme|docs|docstring|lint|linter|format|pre-commit|revert|comment"
    "|comments|rename|CODEOWNERS|flaky|test|tests"
)


def change_score(item: Item, discussion: int = 0) -> float:
    """How important a merged PR is: tags, labels, title words, discussion, substance."""
    tags = title_tags(item.title)
    if any(tag in _LOW_TAGS for tag in tags):
        return -3.0
    score = max((_TAG_SCORES.get(tag, 0.0) for tag in tags), default=0.0)
    score += sum(_LABEL_SCORES.get(label.lower(), 0.0) for label in item.labels)
    score += min(2.0, 0.5 * len(words_in(item.title, _CORE_WORDS)))
    score -= 1.5 * len(words_in(item.title, _LOW_WORDS))
    score += min(1.5, 0.25 * discussion)
    if first_sentence(item.body_excerpt):
        score += 0.5
    if item.author_is_bot:
        score -= 5.0
    return score


def key_changes(
    merged: Sequence[Item],
    discussion: Mapping[int, int] | None = None,
    limit: int = KEY_CHANGES_LIMIT,
) -> tuple[Item, ...]:
    """The most important merged PRs (positive score only), best first.

    ``discussion`` maps an item number to its human comments in the window.
    """
    talk = discussion or {}
    scored = [(change_score(item, talk.get(item.number, 0)), item) for item in merged]
    ranked = sorted(
        (entry for entry in scored if entry[0] > 0), key=lambda e: (-e[0], -e[1].number)
    )
    return tuple(item for _, item in ranked[:limit])
