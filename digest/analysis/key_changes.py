"""Key changes: merged pull requests ranked by substance and by how much they change."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from digest.analysis.substance import (
    Discussion,
    is_dependency_bump,
    is_reland,
    is_revert,
    substance,
    words_beyond_title,
)
from digest.analysis.text import title_tags, words, words_in
from digest.models import Item

KEY_CHANGES_LIMIT = 8
BEYOND_TITLE = 8  # words a description must add to its title for its PR to be a key change

_TAG_SCORES: Mapping[str, float] = {
    **dict.fromkeys(("perf", "performance", "kernel", "kernels"), 3.0),
    **dict.fromkeys(("feature", "model", "new model"), 2.5),
    **dict.fromkeys(
        ("core", "engine", "scheduler", "attention", "quantization", "spec decode", "moe"), 2.0
    ),
    **dict.fromkeys(
        ("v1", "frontend", "api", "sampler", "distributed", "multimodal", "torch.compile"), 1.5
    ),
    **dict.fromkeys(("bugfix", "fix", "bug", "hotfix", "refactor", "revert"), 1.5),
    **dict.fromkeys(("rocm", "amd", "cuda", "tpu", "xpu", "cpu", "hardware"), 0.5),
}
_HARDWARE_TAGS = frozenset(words("rocm|amd|cuda|tpu|xpu|cpu|hardware|nvidia|intel|gaudi|hpu"))
_LOW_TAGS = frozenset(
    words(
        "ci|ci/build|build|doc|docs|documentation|test|tests|testing|misc|chore|typo|deps"
        "|dependencies|lint|style|release"
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
    "typo|typos|bump|pin|readme|docs|docstring|lint|linter|format|pre-commit|comment"
    "|comments|rename|CODEOWNERS|flaky|test|tests"
)


def change_score(
    item: Item, talk: Discussion | None = None, template: frozenset[str] = frozenset()
) -> float:
    """How much a merged PR matters: its substance (description, fixed issues, discussion,
    participants, labels) first, then its tags (bracketed or conventional-commit), reverts and
    re-lands, the breadth of its scope and its title's words. Bots, dependency bumps, CI and
    docs stay out."""
    if item.author_is_bot:
        return -5.0
    if is_dependency_bump(item):
        return -4.0
    tags = title_tags(item.title)
    if any(tag in _LOW_TAGS for tag in tags):
        return -3.0
    score = substance(item, talk or Discussion(), template)
    score += max((_TAG_SCORES.get(tag, 0.0) for tag in tags), default=0.0)
    score += sum(_LABEL_SCORES.get(label.lower(), 0.0) for label in item.labels)
    if is_revert(item) or is_reland(item):
        score += 1.0
    scopes = {tag for tag in tags if tag not in _HARDWARE_TAGS}
    score += min(1.0, 0.5 * max(0, len(scopes) - 1))
    score += min(1.0, 0.25 * len(words_in(item.title, _CORE_WORDS)))
    score -= 1.5 * len(words_in(item.title, _LOW_WORDS))
    return score


def key_changes(
    merged: Sequence[Item],
    talk: Discussion | None = None,
    limit: int = KEY_CHANGES_LIMIT,
    template: frozenset[str] = frozenset(),
) -> tuple[Item, ...]:
    """The most important merged PRs (positive score only), best first. A PR whose
    description adds fewer than ``BEYOND_TITLE`` words to its title (and fixes no issue) is
    no key change: fewer items beat filler.

    ``talk`` is the window's human discussion; ``template`` the lines of the repository's PR
    template (see :func:`digest.analysis.substance.template_lines`).
    """
    scored = [
        (change_score(item, talk, template), item)
        for item in merged
        if item.fixes or words_beyond_title(item, template) >= BEYOND_TITLE
    ]
    ranked = sorted(
        (entry for entry in scored if entry[0] > 0), key=lambda e: (-e[0], -e[1].number)
    )
    return tuple(item for _, item in ranked[:limit])
