"""The kind of an item: what a PR changes (fix, feature, performance, refactor, revert, docs,
CI, dependencies) or what an issue is (bug, feature request, RFC, performance report,
question), from its title's tags and verbs and its labels."""

from __future__ import annotations

from digest.analysis.substance import is_dependency_bump, is_revert
from digest.analysis.text import strip_tags, title_tags, words, words_in
from digest.models import Item

PR_KINDS = ("revert", "docs", "ci", "deps", "perf", "refactor", "fix", "feature")
ISSUE_KINDS = ("rfc", "bug", "perf_report", "feature_request", "question")

_DOC_TAGS = frozenset(words("doc|docs|documentation"))
_CI_TAGS = frozenset(words("ci|ci/build|build|test|tests|testing|ci build"))
_PERF_TAGS = frozenset(words("perf|performance|kernel|kernels|optimization"))
_FIX_TAGS = frozenset(words("bugfix|fix|bug|hotfix"))
_REFACTOR_TAGS = frozenset(words("refactor|cleanup|moe refactor|chore|misc"))
_FEATURE_TAGS = frozenset(words("feature|model|new model|frontend|core"))
_PERF_WORDS = words(
    "speed up|speedup|faster|optimize|optimise|optimized|perf|performance|throughput|latency"
    "|tune|tuned|tuning|fused|fuse|fusion|reduce overhead"
)
_FIX_WORDS = words(
    "fix|fixes|fixed|bug|bugfix|crash|regression|hang|error|incorrect|wrong|broken|accuracy"
)
_REFACTOR_WORDS = words(
    "refactor|refactors|cleanup|clean up|simplify|restructure|deprecate|move|rename|improve"
)
_FEATURE_WORDS = words("add support|support|enable|enables|introduce|add|adds|new|allow")
_DEPS_WORDS = words("pin|bump|upgrade|update the version|requirements")


def _tags(item: Item) -> set[str]:
    tags = set(title_tags(item.title))
    for tag in list(tags):
        tags.update(tag.split())
    return tags


def pr_kind(item: Item) -> str:
    """One of ``PR_KINDS``: tags first ([Doc], [CI], [Perf], [Bugfix]…), then the title's verbs."""
    if is_revert(item):
        return "revert"
    tags = _tags(item)
    title = strip_tags(item.title)
    pinned = words_in(title, _DEPS_WORDS) and not words_in(title, _FIX_WORDS)
    if is_dependency_bump(item) or pinned:
        return "ci" if tags & _CI_TAGS else "deps"
    for kind, tagged in (
        ("docs", _DOC_TAGS),
        ("ci", _CI_TAGS),
        ("fix", _FIX_TAGS),
        ("perf", _PERF_TAGS),
        ("refactor", _REFACTOR_TAGS),
    ):
        if tags & tagged:
            return kind
    for kind, verbs in (
        ("fix", _FIX_WORDS),
        ("perf", _PERF_WORDS),
        ("refactor", _REFACTOR_WORDS),
        ("feature", _FEATURE_WORDS),
    ):
        if words_in(title, verbs):
            return kind
    return "fix" if {"bug"} & {label.lower() for label in item.labels} else "feature"


def issue_kind(item: Item) -> str:
    """One of ``ISSUE_KINDS``, from the template's title tag ([Bug], [RFC], [Feature]…)."""
    tags = _tags(item)
    labels = {label.lower() for label in item.labels}
    if "rfc" in tags or "rfc" in labels:
        return "rfc"
    if tags & {"performance", "perf"} or "performance" in labels:
        return "perf_report"
    if tags & {"bug", "regression"} or "bug" in labels:
        return "bug"
    if tags & {"feature", "new model", "feature request"} or "feature request" in labels:
        return "feature_request"
    if tags & {"usage", "question", "misc", "doc"} or "usage" in labels:
        return "question"
    return "bug" if words_in(item.title, _FIX_WORDS) else "feature_request"


def kind_of(item: Item) -> str:
    """What ``item`` is: a PR's change kind or an issue's kind."""
    return pr_kind(item) if item.is_pr else issue_kind(item)
