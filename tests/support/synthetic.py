"""Deterministic synthetic GitHub activity of vLLM's size, and the facts a digest must find in it.

API::

    from tests.support.synthetic import DEFAULT_NOW, generate

    data = generate(days=1, now=DEFAULT_NOW, seed=1, repo="vllm-project/vllm", review_share=0.0)

    data.issues          list[dict]: issue and PR rows in the issues-API shape (PR rows carry
                         ``pull_request.merged_at``; issue rows have no ``pull_request`` key)
    data.comments        list[dict]: repository comment rows (id, issue_url, html_url, user, body,
                         created_at, updated_at, author_association)
    data.review_comments list[dict]: inline review-comment rows (id, pull_request_url, html_url,
                         user, path, in_reply_to_id, body, ...): with ``review_share`` s, about
                         that share of the human comments on PRs are review comments instead
                         (drawn from a separate random stream, so the other rows do not change)
    data.start, data.now the span of generated activity: [now - days, now]
    data.day(k)          (start, end) of the k-th 24 h window back from now; day(0) ends at now
    data.expected_counts(start, end) -> digest.models.Counts
                         the five counts over [start, end), from the generator's bookkeeping
    data.rocm_numbers    frozenset[int]: items of the default ``rocm`` topic
    data.rocm_by_reason  {"label", "tag", "keyword", "author"} -> the numbers planted that way:
                         "label" and "author" items carry no rocm word at all; "keyword" items
                         name one in the title (no tag, no label); "tag" titles start with
                         [ROCm], [AMD] or [AITER] (one per day is an old PR merged that day)
    data.trap_numbers    frozenset[int]: look-alike words (ownership, command, chip, shipping,
                         hipster, AMDAHL, a long CUDA log naming AMD once); must NOT match rocm
    data.bot_logins      frozenset[str]: every bot that authored a comment or an item
    data.edge_numbers    {"created", "closed", "merged"} -> items whose time sits exactly on a
                         day boundary start + k days (k = 0..days; the last boundary is ``now``)
    data.reopened_numbers frozenset[int]: closed in the span, then reopened (GitHub clears
                         closed_at on reopen, so they are not closed)
    data.human_comment_counts(start, end) -> {number: comments by humans created in [start, end)}
                         (conversation and review comments alike, as are the two below)
    data.participants(start, end)         -> {number: frozenset of human commenters}
    data.most_discussed(start, end, n=5)  -> numbers by human comments (desc), then by number;
                         each day's top five are well separated (>= 8 vs <= 6 for the rest)
    data.rows_updated_since(moment)       -> (issue rows, comment rows) with updated_at >= moment
    data.review_rows_updated_since(moment) -> review-comment rows with updated_at >= moment
    data.row(number)     the issue/PR row of one item

Per day: ~40 new issues, ~110 new PRs, ~500 comments (about a third by bots: github-actions[bot],
mergify[bot], a ``type == "Bot"`` user without the suffix, a ``[bot]`` login typed "User"), old
items (created weeks earlier) closed or merged, PRs created and merged the same day, PRs closed
unmerged, reopened items, a bot-storm PR (many bot comments, two human ones), an old issue with a
large lifetime ``comments`` count but one comment in the day, and comments edited later.
Times are whole seconds (as GitHub's); ``now`` must be aware and have no microseconds.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from digest.models import Counts

DEFAULT_NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)  # 2026-03-11 11:21 (UTC+8)
DAY = timedelta(days=1)
API = "https://api.github.com"
WEB = "https://github.com"
FIRST_NEW_NUMBER = 40000
FIRST_COMMENT_ID = 3_900_000_000
FIRST_REVIEW_ID = 2_700_000_000
REVIEW_PATHS = [
    "vllm/v1/core/sched/scheduler.py",
    "vllm/v1/worker/gpu_model_runner.py",
    "vllm/model_executor/layers/fused_moe/layer.py",
    "vllm/v1/attention/backends/flash_attn.py",
    "vllm/entrypoints/openai/serving_chat.py",
    "vllm/model_executor/models/qwen3_next.py",
    "csrc/attention/paged_attention_v1.cu",
    "tests/v1/core/test_scheduler.py",
]

Row = dict[str, Any]

# -- vocabulary (ordinary items never use a rocm keyword) ---------------------------------------

# fmt: off
MODELS = [
    "Qwen3.5", "Qwen3.5-397B-A17B", "Qwen3.5-35B-A3B", "DeepSeek-V3.2", "DeepSeek-V3.2-Exp",
    "Llama 4 Maverick", "Llama 4 Scout", "gpt-oss-120b", "gpt-oss-20b", "Kimi-K2",
    "GLM-4.6", "Gemma 3", "Mistral Large 3", "MiniMax-M2", "Qwen3-VL", "Qwen3-Next",
]
MODEL_WEIGHTS = [9, 5, 3, 8, 3, 4, 3, 6, 3, 3, 3, 2, 2, 2, 3, 3]
HARDWARE = ["H100", "H200", "B200", "GB200", "A100", "L40S", "TPU v6e", "RTX 5090"]
FEATURES = [
    "prefix caching", "chunked prefill", "CUDA graphs", "torch.compile", "speculative decoding",
    "EAGLE-3", "structured outputs", "tool calling", "LoRA", "pipeline parallel",
    "expert parallel", "data parallel", "FP8 KV cache", "NVFP4", "MXFP4", "async scheduling",
    "disaggregated prefill", "sleep mode", "multimodal inputs", "reasoning parser",
]
COMPONENTS = [
    "scheduler", "KV cache manager", "FlashInfer backend", "FlashAttention backend",
    "fused MoE layer", "OpenAI-compatible server", "tool parser", "sampler", "detokenizer",
    "model runner", "block table", "engine core", "multimodal processor", "Triton attention",
    "weight loader", "metrics exporter", "request router", "guided decoding backend",
]
BUGS = [
    "crashes during CUDA graph capture", "returns garbage output", "hangs at startup",
    "runs out of memory", "produces NaN logits", "fails to load weights",
    "is slower than the previous release", "ignores the max_tokens setting",
    "raises an illegal memory access", "deadlocks under high concurrency",
]
ISSUE_KINDS = [
    ("[Bug]: ", "bug", 16), ("[Feature]: ", "feature request", 7), ("[Usage]: ", "usage", 6),
    ("[Performance]: ", "performance", 4), ("[RFC]: ", "RFC", 2),
    ("[Installation]: ", "installation", 2), ("[Doc]: ", "documentation", 2),
]
PR_TAGS = [
    ("[Bugfix]", 14), ("[Model]", 9), ("[Kernel]", 8), ("[Core]", 6), ("[V1]", 5),
    ("[Perf]", 6), ("[CI/Build]", 7), ("[Misc]", 7), ("[Frontend]", 6), ("[Doc]", 4),
    ("[Quantization]", 4), ("[Spec Decode]", 3), ("[Attention]", 3), ("[TPU]", 2),
    ("[Multimodal]", 3), ("[LoRA]", 2),
]
PR_LABELS = {
    "[Bugfix]": ["bug"], "[Model]": ["new-model"], "[Kernel]": ["performance"],
    "[V1]": ["v1"], "[Perf]": ["performance"], "[CI/Build]": ["ci/build"],
    "[Doc]": ["documentation"], "[Frontend]": ["frontend"],
    "[Spec Decode]": ["speculative-decoding"], "[TPU]": ["tpu"],
    "[Multimodal]": ["multi-modality"], "[Quantization]": ["quantization"],
}
MODEL_LABELS = {"Qwen": "qwen", "DeepSeek": "deepseek", "Llama": "llama", "gpt-oss": "gpt-oss"}
FIRST = [
    "alex", "bo", "chen", "dana", "eli", "fang", "gus", "hana", "ivan", "jun", "kai", "lena",
    "ming", "nora", "omar", "pei", "quinn", "ravi", "sara", "tao", "uma", "vik", "wei", "xin",
    "yuki", "zoe", "li", "yan", "hao", "rui",
]
LAST = [
    "zhang", "liu", "patel", "kim", "nguyen", "smith", "garcia", "wang", "chen", "sato",
    "mueller", "rossi", "silva", "ito", "park", "lee", "huang", "yang", "zhao", "kumar",
]
# fmt: on
AMD_AUTHORS = ["hkim-amd", "lwang-amd", "tsato-amd"]
WELCOME = (
    "👋 Hi! Thank you for contributing to the vLLM project.\n\n💬 Join our developer Slack at "
    "https://slack.vllm.ai to discuss your PR in #pr-reviews.\n\nJust a reminder: PRs would not "
    "trigger full CI run by default. Instead, it would only run `fastcheck` CI."
)
CONFLICT = (
    "This pull request has merge conflicts that must be resolved before it can be merged. "
    "Please rebase the PR, @{author}."
)
PRECOMMIT = (
    "[pre-commit.ci] auto fixes from pre-commit.com hooks\n\n"
    "for more information, see https://pre-commit.ci"
)
CI_BOT = "Buildkite build #{n} failed: 2 jobs failed (entrypoints-test, kernels-moe-test)."
BOTS = {
    "github-actions[bot]": "Bot",
    "mergify[bot]": "Bot",
    "vllm-ci": "Bot",  # a bot by type only
    "pre-commit-ci[bot]": "User",  # a bot by login only
    "dependabot[bot]": "Bot",
}
HUMAN_LINES = [
    "I can reproduce this on {hw} with {model}; it started after the last nightly.",
    "Could you add a unit test that covers {feature}? Otherwise LGTM.",
    "This looks like the same root cause as the {component} change last week.",
    "We saw a {pct}% throughput drop on {hw} with this, can you double-check the benchmark?",
    "Thanks for the fix! Verified locally with {model}, the crash is gone.",
    "I'd rather not add another flag here; can we detect it from the model config instead?",
    "The numbers look good: TTFT is down {pct}% at batch size 64 on {hw}.",
    "Please rebase on main, {component} moved in the refactor.",
    "Is this still an issue with the latest release? I cannot reproduce it on {hw}.",
    "I disagree with changing the default; it breaks {feature} for existing users.",
    "+1, same problem with {model} on {hw} with {feature} enabled.",
    "Let's split this PR: the {component} part can land first.",
    "Can you share the full stack trace and your launch command?",
    "Benchmarked with {model}: {pct}% faster end to end, accuracy unchanged on GSM8K.",
]
LOG_LINES = [
    "INFO {t} [core.py:{n}] Initializing a V1 LLM engine (v0.11.1) with config: model='{model}'",
    "INFO {t} [gpu_model_runner.py:{n}] Model loading took {pct}.{n2} GiB and {n2}.1 seconds",
    "INFO {t} [backends.py:{n}] Using cache directory for torch.compile",
    "WARNING {t} [cuda.py:{n}] CUDA graph capture for batch size {n2} took longer than expected",
    "INFO {t} [kv_cache_utils.py:{n}] GPU KV cache size: {n}{n2} tokens",
    "ERROR {t} [core.py:{n}] EngineCore hit an exception: CUDA error: an illegal memory access",
]


@dataclass(slots=True, eq=False)
class _Item:
    kind: str  # "issue" | "pr"
    title: str
    body: str
    author: str
    labels: list[str]
    created: datetime
    closed: datetime | None = None
    merged: datetime | None = None
    state_reason: str | None = None
    draft: bool = False
    prior_comments: int = 0
    touched: list[datetime] = field(default_factory=list)
    association: str = "CONTRIBUTOR"
    number: int = 0
    comments: int = 0
    updated: datetime | None = None


@dataclass(slots=True, eq=False)
class _Comment:
    item: _Item
    author: str
    body: str
    created: datetime
    updated: datetime
    id: int = 0
    path: str = ""  # set on inline review comments
    reply_to: int | None = None

    @property
    def is_bot(self) -> bool:
        return self.author in BOTS


@dataclass(frozen=True, slots=True, eq=False)
class Dataset:
    """Generated rows and the facts known by construction (see the module docstring)."""

    repo: str
    start: datetime
    now: datetime
    issues: list[Row]
    comments: list[Row]
    review_comments: list[Row]
    rocm_numbers: frozenset[int]
    rocm_by_reason: dict[str, frozenset[int]]
    trap_numbers: frozenset[int]
    bot_logins: frozenset[str]
    edge_numbers: dict[str, frozenset[int]]
    reopened_numbers: frozenset[int]
    _items: tuple[_Item, ...]
    _comments: tuple[_Comment, ...]

    def day(self, k: int = 0) -> tuple[datetime, datetime]:
        end = self.now - k * DAY
        return end - DAY, end

    def expected_counts(self, start: datetime, end: datetime) -> Counts:
        def inside(moment: datetime | None) -> bool:
            return moment is not None and start <= moment < end

        issues = [i for i in self._items if i.kind == "issue"]
        prs = [i for i in self._items if i.kind == "pr"]
        return Counts(
            new_issues=sum(inside(i.created) for i in issues),
            closed_issues=sum(inside(i.closed) for i in issues),
            new_prs=sum(inside(i.created) for i in prs),
            merged_prs=sum(inside(i.merged) for i in prs),
            closed_unmerged_prs=sum(inside(i.closed) and i.merged is None for i in prs),
        )

    def human_comment_counts(self, start: datetime, end: datetime) -> dict[int, int]:
        counts: Counter[int] = Counter(
            c.item.number for c in self._comments if not c.is_bot and start <= c.created < end
        )
        return dict(counts)

    def participants(self, start: datetime, end: datetime) -> dict[int, frozenset[str]]:
        people: dict[int, set[str]] = defaultdict(set)
        for c in self._comments:
            if not c.is_bot and start <= c.created < end:
                people[c.item.number].add(c.author)
        return {number: frozenset(names) for number, names in people.items()}

    def most_discussed(self, start: datetime, end: datetime, n: int = 5) -> list[int]:
        counts = self.human_comment_counts(start, end)
        return sorted(counts, key=lambda number: (-counts[number], number))[:n]

    def rows_updated_since(self, moment: datetime) -> tuple[int, int]:
        stamp = _iso(moment)
        return (
            sum(row["updated_at"] >= stamp for row in self.issues),
            sum(row["updated_at"] >= stamp for row in self.comments),
        )

    def review_rows_updated_since(self, moment: datetime) -> int:
        stamp = _iso(moment)
        return sum(row["updated_at"] >= stamp for row in self.review_comments)

    def row(self, number: int) -> Row:
        return next(row for row in self.issues if row["number"] == number)


def generate(
    days: int = 1,
    now: datetime = DEFAULT_NOW,
    seed: int = 1,
    repo: str = "vllm-project/vllm",
    review_share: float = 0.0,
) -> Dataset:
    """``days`` of vLLM-sized activity ending at ``now`` (see the module docstring)."""
    if now.tzinfo is None or now.microsecond:
        raise ValueError("now must be timezone-aware, in whole seconds")
    if days < 1:
        raise ValueError("days must be at least 1")
    generator = _Generator(days, now.astimezone(UTC), random.Random(seed), repo)
    return generator.run(review_share, random.Random(f"reviews-{seed}"))


class _Generator:
    def __init__(self, days: int, now: datetime, rng: random.Random, repo: str) -> None:
        self.days = days
        self.now = now
        self.start = now - days * DAY
        self.rng = rng
        self.repo = repo
        self.items: list[_Item] = []
        self.comments: list[_Comment] = []
        self.humans = self._logins()
        self.rocm: dict[str, list[_Item]] = defaultdict(list)
        self.traps: list[_Item] = []
        self.edges: dict[str, list[_Item]] = defaultdict(list)
        self.reopened: list[_Item] = []
        self.per_item: Counter[int] = Counter()  # background human comments per item id()

    # -- the run ----------------------------------------------------------------------------

    def run(self, review_share: float, review_rng: random.Random) -> Dataset:
        self._background()
        for d in range(self.days):
            self._day(self.start + d * DAY)
        self._edges()
        self._number()
        self._reviews(review_share, review_rng)
        issues = [self._issue_row(item) for item in sorted(self.items, key=lambda i: i.number)]
        comment_rows = [self._comment_row(c) for c in self.comments if not c.path]
        review_rows = [self._review_row(c) for c in self.comments if c.path]
        bots = {c.author for c in self.comments if c.is_bot} | {
            i.author for i in self.items if i.author in BOTS
        }
        reasons = {
            reason: frozenset(i.number for i in items) for reason, items in self.rocm.items()
        }
        return Dataset(
            repo=self.repo,
            start=self.start,
            now=self.now,
            issues=issues,
            comments=comment_rows,
            review_comments=review_rows,
            rocm_numbers=frozenset().union(*reasons.values()),
            rocm_by_reason=reasons,
            trap_numbers=frozenset(i.number for i in self.traps),
            bot_logins=frozenset(bots),
            edge_numbers={k: frozenset(i.number for i in v) for k, v in self.edges.items()},
            reopened_numbers=frozenset(i.number for i in self.reopened),
            _items=tuple(self.items),
            _comments=tuple(self.comments),
        )

    def _background(self) -> None:
        """Old items untouched during the span, with old comments (``since`` must skip them)."""
        for _ in range(50):
            item = self._old_item(self.rng.choice(("issue", "pr")), 20, 120)
            item.prior_comments = self.rng.randint(0, 6)
            last = item.created + timedelta(days=self.rng.uniform(0.5, 15))
            last = min(last, self.start - timedelta(hours=1))
            item.touched.append(_whole(last))
            for _ in range(self.rng.randint(0, 3)):
                moment = self._between(item.created, last)
                self._comment(item, self.rng.choice(self.humans), self._human_text(), moment)

    def _day(self, day_start: datetime) -> None:
        rng = self.rng
        day_end = day_start + DAY
        new: list[_Item] = []
        for _ in range(rng.randint(36, 44)):
            item = self._new_issue(self._at(day_start))
            self._issue_fate(item)
            new.append(item)
        for _ in range(rng.randint(104, 116)):
            item = self._new_pr(self._at(day_start, 0, 0.98))
            self._pr_fate(item, day_start)
            new.append(item)
        old_active = self._old_activity(day_start)
        self._roles(new, old_active, day_start)
        self._discussions(new, old_active, day_start, day_end)

    # -- items ------------------------------------------------------------------------------

    def _new_issue(self, created: datetime) -> _Item:
        rng = self.rng
        prefix, label, _ = _weighted(rng, ISSUE_KINDS, [k[2] for k in ISSUE_KINDS])
        model = self._model()
        hw = rng.choice(HARDWARE)
        feature = rng.choice(FEATURES)
        if label == "bug":
            title = f"{model} {rng.choice(BUGS)} on {hw} with {feature}"
        elif label == "feature request":
            title = f"Support {feature} for {model}"
        elif label == "usage":
            title = f"How to run {model} with {feature} on {hw}?"
        elif label == "performance":
            title = f"{model} throughput regression with {feature} on {hw}"
        elif label == "RFC":
            title = f"Redesign the {rng.choice(COMPONENTS)} for {feature}"
        elif label == "installation":
            title = f"pip install fails for CUDA 12.9 on {hw} nodes"
        else:
            title = f"Document how {feature} interacts with the {rng.choice(COMPONENTS)}"
        labels = [label, *self._model_labels(model)]
        body = self._issue_body(model, hw, feature)
        item = _Item("issue", prefix + title, body, rng.choice(self.humans), labels, created)
        item.association = rng.choice(("NONE", "NONE", "CONTRIBUTOR", "MEMBER"))
        self.items.append(item)
        return item

    def _new_pr(self, created: datetime) -> _Item:
        rng = self.rng
        tag = _weighted(rng, [t for t, _ in PR_TAGS], [w for _, w in PR_TAGS])
        model = self._model()
        component = rng.choice(COMPONENTS)
        feature = rng.choice(FEATURES)
        templates = [
            f"Fix {feature} in the {component} for {model}",
            f"Add support for {model}",
            f"Optimize the {component} for {model} on {rng.choice(HARDWARE)}",
            f"Enable {feature} in the {component}",
            f"Refactor the {component} to prepare for {feature}",
            f"Speed up {feature} by {rng.randint(5, 40)}% on {rng.choice(HARDWARE)}",
        ]
        title = f"{tag} {rng.choice(templates)}"
        labels = list(PR_LABELS.get(tag, [])) + self._model_labels(model)
        if rng.random() < 0.35:
            labels.append("ready")
        body = (
            f"## Purpose\n\n{title.split('] ', 1)[-1]}. The {component} did extra work for "
            f"{feature}; this removes it.\n\n## Test Plan\n\n"
            f"`pytest tests/ -k {feature.split()[0]}` and a serving benchmark with {model}."
            f"\n\n## Test Result\n\nAll tests pass; throughput +{rng.randint(1, 30)}%."
        )
        item = _Item("pr", title, body, rng.choice(self.humans), labels, created)
        item.association = rng.choice(("CONTRIBUTOR", "CONTRIBUTOR", "MEMBER", "COLLABORATOR"))
        self.items.append(item)
        return item

    def _old_item(self, kind: str, min_days: float, max_days: float) -> _Item:
        created = _whole(self.start - timedelta(days=self.rng.uniform(min_days, max_days)))
        item = self._new_issue(created) if kind == "issue" else self._new_pr(created)
        item.prior_comments = self.rng.randint(0, 15)
        return item

    def _issue_fate(self, item: _Item) -> None:
        u = self.rng.random()
        if u < 0.12:
            self._close(item, item.created + timedelta(minutes=self.rng.uniform(10, 360)))
        elif u < 0.22:
            self._close(item, item.created + timedelta(days=self.rng.uniform(1, 4)))

    def _pr_fate(self, item: _Item, day_start: datetime) -> None:
        rng = self.rng
        u = rng.random()
        if u < 0.10:  # created and merged the same day
            item.created = self._at(day_start, 0, 0.6)
            room = (day_start + DAY - item.created).total_seconds()
            self._merge(item, item.created + timedelta(seconds=rng.uniform(1200, room - 60)))
        elif u < 0.30:
            self._merge(item, item.created + timedelta(days=rng.uniform(0.5, 5)))
        elif u < 0.36:
            self._close(item, item.created + timedelta(minutes=rng.uniform(5, 600)))
        elif u < 0.42:
            self._close(item, item.created + timedelta(days=rng.uniform(1, 6)))
        elif rng.random() < 0.15:
            item.draft = True

    def _close(self, item: _Item, moment: datetime, reason: str | None = None) -> None:
        moment = _whole(moment)
        if moment >= self.now:
            return
        item.closed = moment
        if item.kind == "issue":
            item.state_reason = reason or self.rng.choice(("completed", "completed", "not_planned"))

    def _merge(self, item: _Item, moment: datetime) -> None:
        moment = _whole(moment)
        if moment >= self.now:
            return
        item.closed = item.merged = moment

    def _old_activity(self, day_start: datetime) -> list[_Item]:
        """Old items closed, merged or discussed during the day."""
        rng = self.rng
        active: list[_Item] = []
        for _ in range(rng.randint(16, 22)):
            item = self._old_item("issue", 7, 120)
            reason = rng.choice(("completed", "not_planned"))
            if reason == "not_planned":
                item.labels.append("stale")
            self._close(item, self._at(day_start), reason)
            active.append(item)
        for _ in range(rng.randint(20, 28)):
            item = self._old_item("pr", 2, 40)
            self._merge(item, self._at(day_start))
            active.append(item)
        for _ in range(rng.randint(30, 38)):
            item = self._old_item("pr", 20, 150)
            item.labels.append("stale")
            self._close(item, self._at(day_start))
            active.append(item)
        for kind in ("issue", "pr"):  # closed, then reopened: GitHub clears closed_at
            item = self._old_item(kind, 5, 60)
            closed = self._at(day_start, 0, 0.6)
            item.touched += [closed, closed + timedelta(hours=rng.uniform(1, 3))]
            item.state_reason = "reopened" if kind == "issue" else None
            self.reopened.append(item)
            active.append(item)
        twice = self._old_item("issue", 5, 60)  # closed, reopened, closed again
        first = self._at(day_start, 0, 0.4)
        twice.touched += [first, first + timedelta(hours=1)]
        self._close(twice, first + timedelta(hours=rng.uniform(2, 8)), "completed")
        active.append(twice)
        for _ in range(rng.randint(25, 35)):
            active.append(self._old_item(rng.choice(("issue", "pr")), 1, 60))
        return active

    def _roles(self, new: list[_Item], old_active: list[_Item], day_start: datetime) -> None:
        """Give some of the day's items the rocm and trap roles."""
        rng = self.rng
        pool = [i for i in new if i.author not in BOTS]
        rng.shuffle(pool)
        pick = iter(pool)
        label_titles = [
            "[Bugfix] Fix fp8 block-scaled GEMM fallback when N is not a multiple of 128",
            "[Kernel] Skip the Triton autotune cache on first launch",
            "[Bug]: Fused MoE output differs between TP=4 and TP=8 for DeepSeek-V3.2",
        ]
        for title in rng.sample(label_titles, 2):
            item = next(pick)
            item.title = title
            item.body = self._neutral_body()
            item.labels = ["rocm", "bug"]
            self.rocm["label"].append(item)
        tag_titles = [
            "[ROCm] Enable full CUDA graph mode for MLA attention",
            "[ROCm][Perf] Use the triton unified attention backend by default",
            "[AMD] Fix weight loading for Qwen3.5 MoE experts",
            "[AITER] Add fused RMSNorm + FP8 quant for DeepSeek-V3.2",
        ]
        for title in rng.sample(tag_titles, 2):
            item = next(pick)
            item.title = title
            item.body = self._neutral_body()
            item.labels = []
            self.rocm["tag"].append(item)
        keyword_titles = [
            "[Performance]: Qwen3.5 decode is 30% slower on MI300X than on H100",
            "[Kernel] Add gfx942 tuning configs for Qwen3.5 MoE",
            "[Bug]: RCCL all-reduce hangs with tensor parallel 8 on MI355X",
            "[Perf] Use hipBLASLt for FP8 GEMMs in gpt-oss-120b",
            "[Bug]: ROCm 7.0 nightly wheel fails to import vllm._C",
            "[Feature]: Quark MXFP4 checkpoints for Llama 4 Maverick",
        ]
        for title in rng.sample(keyword_titles, 2):
            item = next(pick)
            item.title = title
            item.body = self._neutral_body()
            item.labels = []
            self.rocm["keyword"].append(item)
        item = next(pick)
        item.author = rng.choice(AMD_AUTHORS)
        item.title = "[Kernel] Tune fused MoE configs for E=256, N=512 at batch sizes 1-256"
        item.body = self._neutral_body()
        item.labels = []
        self.rocm["author"].append(item)
        old = next(i for i in old_active if i.kind == "pr" and i.merged is not None)
        old.title = "[ROCm] Enable AITER MLA decode for DeepSeek-V3.2 on MI325X"
        old.labels = ["rocm", "performance"]
        self.rocm["tag"].append(old)
        traps = [
            ("[Bug]: KV cache block ownership is lost after preemption with prefix caching", None),
            ("[Feature]: Add a `vllm bench serve` command for multi-turn chat traces", None),
            ("[TPU] Detect the chip generation from the TPU runtime instead of env vars", None),
            ("[CI/Build] Stop shipping CUDA 12.6 wheels on PyPI", None),
            ("[Misc] Rename the hipster benchmark preset to bursty", None),
            ("[Perf] AMDAHL bound for async scheduling speedups in the benchmark report", None),
            ("[Bug]: CUDA illegal memory access in FlashInfer sampling on H100", "log"),
        ]
        for title, kind in traps:
            item = next(pick)
            item.title = title
            item.body = self._cuda_log() if kind == "log" else self._neutral_body()
            item.labels = ["bug"] if title.startswith("[Bug]") else []
            self.traps.append(item)
        bump = self._new_pr(self._at(day_start, 0, 0.9))
        bump.author = "dependabot[bot]"
        bump.title = "[CI/Build] Bump actions/checkout from 4 to 5"
        bump.labels = ["ci/build", "dependencies"]
        new.append(bump)

    # -- comments ---------------------------------------------------------------------------

    def _discussions(
        self, new: list[_Item], old_active: list[_Item], day_start: datetime, day_end: datetime
    ) -> None:
        rng = self.rng
        for pr in (i for i in new if i.kind == "pr"):
            self._comment(
                pr,
                "github-actions[bot]",
                WELCOME,
                pr.created + timedelta(seconds=rng.randint(5, 90)),
            )
        prs = [i for i in new + old_active if i.kind == "pr"]
        for pr in rng.sample(prs, 20):
            body = CONFLICT.format(author=pr.author)
            self._comment(pr, "mergify[bot]", body, self._after(pr, day_start, day_end))
        for pr in rng.sample(prs, 5):
            self._comment(pr, "pre-commit-ci[bot]", PRECOMMIT, self._after(pr, day_start, day_end))
        special: set[int] = set()
        early = [i for i in new if i.created < day_start + 0.3 * DAY and i.author not in BOTS]
        storm = next(i for i in early if i.kind == "pr")
        special.add(id(storm))
        for n in range(34):
            bot = ("mergify[bot]", "vllm-ci", "github-actions[bot]")[n % 3]
            text = (
                CI_BOT.format(n=1000 + n)
                if bot == "vllm-ci"
                else CONFLICT.format(author=storm.author)
            )
            self._comment(storm, bot, text, self._after(storm, day_start, day_end))
        for _ in range(2):
            self._comment(
                storm,
                rng.choice(self.humans),
                self._human_text(),
                self._after(storm, day_start, day_end),
            )
        candidates = [i for i in early if id(i) not in special][:3] + [
            i for i in old_active if i.closed is None and not i.touched
        ][:2]
        for rank, item in enumerate(candidates):
            special.add(id(item))
            size = (26, 20, 15, 11, 8)[rank] + rng.randint(0, 1)
            people = [item.author, *rng.sample(self.humans, rng.randint(3, 6))]
            for n in range(size):
                author = people[n % len(people)] if n < len(people) else rng.choice(people)
                self._comment(
                    item, author, self._human_text(), self._after(item, day_start, day_end)
                )
        legacy = self._old_item("issue", 200, 300)
        legacy.prior_comments = 240
        legacy.title = "[Feature]: Support for long-context serving beyond 1M tokens"
        self._comment(legacy, rng.choice(self.humans), self._human_text(), self._at(day_start))
        special.add(id(legacy))
        pool = [i for i in new + old_active if id(i) not in special and i.author not in BOTS]
        target = 500 - sum(1 for c in self.comments if day_start <= c.created < day_end)
        placed = 0
        while placed < target:
            item = rng.choice(pool)
            if self.per_item[id(item)] >= 5:
                continue
            moment = self._after(item, day_start, day_end)
            if moment >= day_end:
                continue
            self.per_item[id(item)] += 1
            self._comment(item, rng.choice(self.humans), self._human_text(), moment)
            placed += 1

    def _comment(self, item: _Item, author: str, body: str, created: datetime) -> None:
        created = _whole(created)
        if created > self.now or created < item.created:
            return
        updated = created
        if author not in BOTS and self.rng.random() < 0.06:
            updated = min(self.now, _whole(created + timedelta(minutes=self.rng.uniform(1, 180))))
        self.comments.append(_Comment(item, author, body, created, updated))

    # -- edges ------------------------------------------------------------------------------

    def _edges(self) -> None:
        """Items and comments exactly on the day boundaries ``start + k days``."""
        rng = self.rng
        for k in range(self.days + 1):
            boundary = self.start + k * DAY
            created = self._new_issue(boundary)
            created.title = (
                f"[Bug]: Edge case at day boundary {k}: " + created.title.split(": ", 1)[-1]
            )
            self.edges["created"].append(created)
            closed = self._old_item("issue", 3, 30)
            closed.closed, closed.state_reason = boundary, "completed"
            self.edges["closed"].append(closed)
            merged = self._new_pr(boundary - timedelta(hours=rng.uniform(2, 10)))
            merged.closed = merged.merged = boundary
            self.edges["merged"].append(merged)
            talk = self._old_item("issue", 3, 30)
            self._comment(talk, rng.choice(self.humans), self._human_text(), boundary)

    def _reviews(self, share: float, rng: random.Random) -> None:
        """Turn about ``share`` of the human comments on PRs into inline review comments, in
        threads per file (a reply names the thread's first comment)."""
        if share <= 0:
            return
        threads: dict[tuple[int, str], int] = {}
        offset = 0
        for c in self.comments:
            if c.item.kind != "pr" or c.is_bot or rng.random() >= share:
                continue
            files = REVIEW_PATHS[c.item.number % len(REVIEW_PATHS) :][:2] or REVIEW_PATHS[:1]
            c.path = rng.choice(files)
            c.id = FIRST_REVIEW_ID + offset
            offset += 1
            first = threads.setdefault((c.item.number, c.path), c.id)
            c.reply_to = None if first == c.id else first

    # -- rows -------------------------------------------------------------------------------

    def _number(self) -> None:
        old = sorted((i for i in self.items if i.created < self.start), key=lambda i: i.created)
        new = sorted((i for i in self.items if i.created >= self.start), key=lambda i: i.created)
        for offset, item in enumerate(old):
            item.number = FIRST_NEW_NUMBER - len(old) + offset
        for offset, item in enumerate(new):
            item.number = FIRST_NEW_NUMBER + offset
        self.comments.sort(key=lambda c: (c.created, c.item.number))
        for offset, comment in enumerate(self.comments):
            comment.id = FIRST_COMMENT_ID + offset
        counts = Counter(id(c.item) for c in self.comments)
        last_comment: dict[int, datetime] = {}
        for c in self.comments:
            last_comment[id(c.item)] = max(c.created, last_comment.get(id(c.item), c.created))
        for item in self.items:
            item.comments = item.prior_comments + counts[id(item)]
            moments = [item.created, *item.touched]
            moments += [m for m in (item.closed, item.merged, last_comment.get(id(item))) if m]
            item.updated = max(moments)

    def _issue_row(self, item: _Item) -> Row:
        n = item.number
        is_pr = item.kind == "pr"
        row: Row = {
            "url": f"{API}/repos/{self.repo}/issues/{n}",
            "html_url": f"{WEB}/{self.repo}/{'pull' if is_pr else 'issues'}/{n}",
            "id": 3_000_000_000 + n,
            "number": n,
            "title": item.title,
            "user": _user(item.author),
            "labels": [{"name": name} for name in dict.fromkeys(item.labels)],
            "state": "closed" if item.closed else "open",
            "locked": False,
            "assignees": [],
            "comments": item.comments,
            "created_at": _iso(item.created),
            "updated_at": _iso(item.updated),
            "closed_at": _iso(item.closed),
            "author_association": item.association,
            "body": item.body,
            "reactions": {"total_count": item.comments // 4},
            "state_reason": item.state_reason
            if (item.closed or item.state_reason == "reopened")
            else None,
        }
        if is_pr:
            row["draft"] = item.draft
            row["state_reason"] = None
            row["pull_request"] = {
                "url": f"{API}/repos/{self.repo}/pulls/{n}",
                "html_url": f"{WEB}/{self.repo}/pull/{n}",
                "diff_url": f"{WEB}/{self.repo}/pull/{n}.diff",
                "patch_url": f"{WEB}/{self.repo}/pull/{n}.patch",
                "merged_at": _iso(item.merged),
            }
        return row

    def _comment_row(self, c: _Comment) -> Row:
        n = c.item.number
        page = "pull" if c.item.kind == "pr" else "issues"
        return {
            "id": c.id,
            "url": f"{API}/repos/{self.repo}/issues/comments/{c.id}",
            "html_url": f"{WEB}/{self.repo}/{page}/{n}#issuecomment-{c.id}",
            "issue_url": f"{API}/repos/{self.repo}/issues/{n}",
            "user": _user(c.author),
            "created_at": _iso(c.created),
            "updated_at": _iso(c.updated),
            "author_association": "NONE" if c.author in BOTS else "CONTRIBUTOR",
            "body": c.body,
            "reactions": {"total_count": 0},
        }

    def _review_row(self, c: _Comment) -> Row:
        n = c.item.number
        row: Row = {
            "id": c.id,
            "url": f"{API}/repos/{self.repo}/pulls/comments/{c.id}",
            "pull_request_review_id": 3_500_000_000 + c.id % 10**8,
            "html_url": f"{WEB}/{self.repo}/pull/{n}#discussion_r{c.id}",
            "pull_request_url": f"{API}/repos/{self.repo}/pulls/{n}",
            "diff_hunk": "@@ -120,7 +120,9 @@ def forward(self, hidden_states):",
            "path": c.path,
            "commit_id": f"{zlib.crc32(str(n).encode()):08x}" * 5,
            "user": _user(c.author),
            "created_at": _iso(c.created),
            "updated_at": _iso(c.updated),
            "author_association": "CONTRIBUTOR",
            "body": c.body,
            "reactions": {"total_count": 0},
        }
        if c.reply_to is not None:
            row["in_reply_to_id"] = c.reply_to
        return row

    # -- small helpers ----------------------------------------------------------------------

    def _logins(self) -> list[str]:
        names = {f"{f}{s}{last}" for f in FIRST for last in LAST for s in ("", "-")}
        return sorted(self.rng.sample(sorted(names), 220))

    def _model(self) -> str:
        return str(_weighted(self.rng, MODELS, MODEL_WEIGHTS))

    def _model_labels(self, model: str) -> list[str]:
        return [label for key, label in MODEL_LABELS.items() if model.startswith(key)]

    def _at(self, day_start: datetime, lo: float = 0.0, hi: float = 1.0) -> datetime:
        seconds = self.rng.randrange(int(lo * 86400), int(hi * 86400))
        return day_start + timedelta(seconds=seconds)

    def _between(self, lo: datetime, hi: datetime) -> datetime:
        span = max(0, int((hi - lo).total_seconds()))
        return lo + timedelta(seconds=self.rng.randint(0, span))

    def _after(self, item: _Item, day_start: datetime, day_end: datetime) -> datetime:
        """A moment of the day after ``item`` was created (or ``day_end`` when there is none)."""
        lo = max(item.created + timedelta(seconds=60), day_start)
        if lo >= day_end - timedelta(seconds=1):
            return day_end
        return self._between(lo, day_end - timedelta(seconds=1))

    def _human_text(self) -> str:
        rng = self.rng
        return rng.choice(HUMAN_LINES).format(
            hw=rng.choice(HARDWARE),
            model=self._model(),
            feature=rng.choice(FEATURES),
            component=rng.choice(COMPONENTS),
            pct=rng.randint(3, 45),
        )

    def _issue_body(self, model: str, hw: str, feature: str) -> str:
        return (
            "### Your current environment\n\n<details>\n<summary>The output of "
            "<code>python collect_env.py</code></summary>\n\n```text\n"
            "PyTorch version: 2.9.0+cu128\n"
            f"CUDA used to build PyTorch: 12.8\nOS: Ubuntu 22.04.5 LTS (x86_64)\nGPU models and "
            f"configuration: GPU 0-7: NVIDIA {hw}\nvLLM Version: 0.11.1\n```\n\n</details>\n\n"
            f"### 🐛 Describe the bug\n\nServing {model} with {feature} enabled fails after a few "
            "hundred requests. Launch command: `vllm serve` with default settings.\n"
        )

    def _neutral_body(self) -> str:
        return (
            "## Purpose\n\nTighten the kernel selection so the fast path is used for the common "
            "shapes.\n\n## Test Plan\n\nUnit tests and an end-to-end accuracy check (GSM8K).\n"
        )

    def _cuda_log(self) -> str:
        rng = self.rng
        lines = ["### 🐛 Describe the bug", "", "The engine dies under load. Full log:", ""]
        for n in range(70):
            moment = f"03-10 0{n % 10}:{n % 60:02d}:{(n * 7) % 60:02d}"
            line = rng.choice(LOG_LINES).format(
                t=moment, n=100 + n, n2=n % 10, pct=rng.randint(10, 90), model=self._model()
            )
            lines.append(line)
            if n == 55:
                lines.append("INFO host info: Model name: AMD EPYC 9654 96-Core Processor")
        lines.append("RuntimeError: CUDA error: an illegal memory access was encountered")
        return "\n".join(lines)


def _weighted(rng: random.Random, values: list[Any], weights: Iterable[float]) -> Any:
    return rng.choices(values, weights=list(weights), k=1)[0]


def _whole(moment: datetime) -> datetime:
    return moment.replace(microsecond=0)


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _user(login: str) -> dict[str, Any]:
    kind = BOTS.get(login, "User")
    return {"login": login, "id": zlib.crc32(login.encode()) % 10**8, "type": kind}
