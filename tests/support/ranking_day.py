"""A realistic ranking day of vLLM: many template-only PRs and issues, a few substantive ones.

API::

    from tests.support.ranking_day import ranking_day

    day = ranking_day(now=DEFAULT_NOW, seed=1)
    day.issues, day.comments, day.review_comments   rows in the REST shapes
    day.start, day.end                              the 24 h window
    day.substantive_merged   merged PRs a reader must see first in key changes: a fix of a
                             data-corrupting bug with a long description and ``Fixes #N``, an
                             architecture change titled ``feat(grpc): ...`` (no bracket tag),
                             a re-land, a fused-kernel PR with a benchmark table
    day.substantive_open     open regressions a reader must see first in worth watching:
                             detailed, bisected reports discussed by several people
    ranking_analysis(day)    the analysis of the day (no focus topic)

The rest are written as they often are: PR bodies that keep the template's headings and
checklist with one line filled in (or none), tuned-config and flag tweaks whose titles carry
high-scoring tags ([Kernel], [Perf], [Model]), dependency bumps by a bot, and bug reports
that leave the template's sections empty, some titled "regression" or "crash".
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from digest.analysis.analyze import analyze
from digest.analysis.types import Analysis, WindowData
from digest.github.parse import comment_from_api, item_from_api, review_comment_from_api
from digest.models import Window
from tests.support.synthetic import DEFAULT_NOW

Row = dict[str, Any]
REPO = "vllm-project/vllm"
API = "https://api.github.com"
WEB = "https://github.com"

FILL_IN = (
    "PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) "
    "HAVE BEEN CONSIDERED."
)
BEFORE = (
    "**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing> "
    "(anything written below this line will be removed by GitHub Actions)**"
)
SEARCHED = (
    "- [x] Make sure you already searched for relevant issues, and asked the chatbot living "
    "at the bottom right corner of the [documentation page](https://docs.vllm.ai/en/latest/), "
    "which can answer lots of frequently asked questions."
)
PR_TEMPLATE = """<!-- markdownlint-disable -->
{fill_in}

## Purpose
{purpose}
## Test Plan
{plan}
## Test Result
{result}
---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
- [ ] The test results, such as pasting the results comparison before and after, or e2e results
</details>

{before}
"""
PR_TEMPLATE = PR_TEMPLATE.replace("{fill_in}", FILL_IN).replace("{before}", BEFORE)
ISSUE_TEMPLATE = """### Your current environment

<details>
<summary>The output of <code>python collect_env.py</code></summary>

```text
Your output of `python collect_env.py` here
```

</details>

### 🐛 Describe the bug

{bug}

### Before submitting a new issue...

{searched}
"""

ISSUE_TEMPLATE = ISSUE_TEMPLATE.replace("{searched}", SEARCHED)

# fmt: off
TWEAKS = [
    "[Kernel] Add tuned fused MoE config for Qwen3.5-35B-A3B on H200",
    "[Kernel] Add tuned fused MoE config for DeepSeek-V3.2 on B200",
    "[Perf] Tune default block size for FlashInfer on H100",
    "[Perf] Change default max_num_batched_tokens to 8192 for large GPUs",
    "[Model] Update default generation config for Gemma 3",
    "[Model] Add chat template for GLM-4.6",
    "[Frontend] Add --enable-log-outputs flag alias",
    "[Core] Rename num_lookahead_slots in scheduler config",
    "[Bugfix] Fix default value of max_model_len in example",
    "[Kernel] Support FP8 KV cache in Triton attention config",
    "[Quantization] Add NVFP4 to the supported list in the quantization config",
    "[V1] Make the engine core poll interval configurable",
    "[Attention] Set FlashAttention as the default backend for Blackwell",
    "[Spec Decode] Raise the default num_speculative_tokens to 3",
    "[Multimodal] Bump the default image cache size",
    "[Kernel] Add tuned config for Triton scaled_mm on MI300X",
    "[Perf] Enable CUDA graphs for batch size 512 by default",
    "[Model] Register Qwen3-VL in the model registry alias list",
    "[Frontend] Accept max_completion_tokens in the completions API",
    "[Core] Lower the default swap space to 2 GiB",
    "[Bugfix] Fix typo in the default tokenizer mode",
    "[Kernel] Add tuned fused MoE config for gpt-oss-120b on H100",
    "[Perf] Increase default NCCL buffer size",
    "[Model] Enable torch.compile for Llama 4 Scout by default",
]
LINES = [
    "Small config tweak.", "", "Tune the default.", "See title.", "", "Update config.",
    "Follow-up to the last release.", "",
]
BOILER_BUGS = [
    "[Bug]: crash when loading the model",
    "[Bug]: vllm serve hangs at startup",
    "[Bug]: regression in latest nightly",
    "[Bug]: crash with tool calling",
    "[Bug]: performance regression",
    "[Bug]: OOM with long context",
    "[Bug]: illegal memory access",
    "[Bug]: engine core crashes",
]
# fmt: on

CORRUPTION_BODY = PR_TEMPLATE.format(
    purpose=(
        "Fixes #{issue}.\n\n"
        "When a request is preempted while its prefix is still being written into a shared KV "
        "cache block, the block is released to the free queue with `ref_cnt == 0` but stays "
        "registered in the prefix-cache hash table. A later request whose prefix hashes to the "
        "same block then reads KV entries that were partly overwritten by a third request, "
        "which silently corrupts its output (wrong tokens, no error). This PR makes preemption "
        "drop the block hash before freeing the block, and asserts in debug builds that a "
        "cached block is never handed out while being written."
    ),
    plan=(
        "Added a scheduler test that preempts mid-prefill under prefix caching and checks the "
        "outputs token by token; ran the GSM8K and MMLU accuracy suites with forced "
        "preemption (`--max-num-seqs 4`)."
    ),
    result="GSM8K 0.62 -> 0.91 under forced preemption, unchanged without it.",
)
GRPC_BODY = PR_TEMPLATE.format(
    purpose=(
        "This adds a gRPC frontend next to the OpenAI-compatible HTTP server. The engine client "
        "is split out of the API server into a transport-neutral `EngineClient` protocol, and "
        "a new `vllm serve --grpc-port` starts a grpc.aio server that streams tokens over a "
        "bidirectional stream. Routers and gateways that speak gRPC no longer need an HTTP "
        "hop, and the protocol is versioned in `vllm/entrypoints/grpc/vllm_engine.proto`. "
        "RFC: #{rfc}."
    ),
    plan="New end-to-end tests for streaming, cancellation and backpressure.",
    result="p50 TTFT 12% lower than the HTTP frontend at 256 concurrent streams.",
)
RELAND_BODY = PR_TEMPLATE.format(
    purpose=(
        "Re-land of the async scheduling change that was reverted last week because structured "
        "outputs raced with the grammar bitmask update. The bitmask is now computed in the "
        "same step as the scheduler output, so the worker never applies a stale mask. Closes "
        "https://github.com/vllm-project/vllm/issues/{issue}"
    ),
    plan="The structured-output tests now run with async scheduling on and off.",
    result="All green; 7% higher throughput with async scheduling on.",
)
KERNEL_BODY = PR_TEMPLATE.format(
    purpose=(
        "Replace the per-expert GEMM loop of the fused MoE layer with one grouped GEMM for "
        "DeepSeek-V3.2 on B200, with the routing permutation fused into the prologue."
    ),
    plan="`pytest tests/kernels/moe` and a serving benchmark:",
    result="```\n| batch | before | after |\n| 64 | 4120 tok/s | 5890 tok/s |\n```",
)
GARBAGE_ISSUE = ISSUE_TEMPLATE.format(
    bug=(
        "After upgrading from v0.11.0 to v0.11.1, Qwen3-Next-80B-A3B returns garbage output "
        "(repeated tokens, mixed languages) once a conversation exceeds about 9k tokens. "
        "It is deterministic: the same prompt fails every time with prefix caching on, and "
        "never with `--no-enable-prefix-caching`. I bisected it to the KV cache manager change "
        "between the two releases; reverting it locally fixes the output. Happens on H100 and "
        "H200, TP=2 and TP=4, with both the FlashInfer and FlashAttention backends."
    )
)
SLOW_ISSUE = ISSUE_TEMPLATE.format(
    bug=(
        "Serving Llama 4 Maverick with chunked prefill on 8xH100 lost about 30% throughput "
        "between v0.11.0 and v0.11.1 in our nightly benchmark (4,800 -> 3,350 tokens/s at 128 "
        "concurrent requests, same commands and weights). The profile shows the scheduler "
        "spending most of each step re-sorting the waiting queue; with `--max-num-seqs 64` the "
        "gap shrinks to 5%. Bisected to the scheduler priority refactor."
    )
)


@dataclass(frozen=True, slots=True)
class RankingDay:
    """Rows of one day and the items a reader must see first."""

    start: datetime
    end: datetime
    issues: list[Row]
    comments: list[Row]
    review_comments: list[Row]
    substantive_merged: frozenset[int]
    substantive_open: frozenset[int]


def ranking_day(now: datetime = DEFAULT_NOW, seed: int = 1) -> RankingDay:
    """The day ending at ``now`` (see the module docstring)."""
    return _Day(now.astimezone(UTC), random.Random(seed)).run()


class _Day:
    def __init__(self, now: datetime, rng: random.Random) -> None:
        self.end = now
        self.start = now - timedelta(days=1)
        self.rng = rng
        self.issues: list[Row] = []
        self.comments: list[Row] = []
        self.reviews: list[Row] = []
        self.number = 41000
        self.comment_id = 3_950_000_000
        self.review_id = 2_750_000_000
        self.people = [f"dev{n:02d}" for n in range(40)]

    def run(self) -> RankingDay:
        garbage = self._issue(
            "[Bug]: Qwen3-Next returns garbage output after upgrading to v0.11.1",
            GARBAGE_ISSUE,
            labels=["bug"],
        )
        slow = self._issue(
            "[Bug]: Llama 4 Maverick throughput regression with chunked prefill since v0.11.1",
            SLOW_ISSUE,
            labels=["bug", "performance"],
        )
        rfc = self._issue("[RFC]: a gRPC frontend for the engine", "", labels=["RFC"], old=True)
        self._talk(garbage, 9, 5)
        self._talk(slow, 6, 4)
        for title in BOILER_BUGS:
            bug = self._issue(
                title, ISSUE_TEMPLATE.format(bug=self.rng.choice(["", "see title", ""]))
            )
            self._talk(bug, self.rng.randint(0, 1), 1)
        corruption = self._pr(
            "[Bugfix] Fix KV cache block reuse after preemption with prefix caching",
            CORRUPTION_BODY.format(issue=garbage["number"]),
            labels=["bug", "ready"],
        )
        grpc = self._pr(
            "feat(grpc): serve the engine over a gRPC frontend",
            GRPC_BODY.format(rfc=rfc["number"]),
            labels=["frontend", "ready"],
        )
        reland = self._pr(
            "Re-land async scheduling with structured outputs",
            RELAND_BODY.format(issue=slow["number"] - 7),
            labels=["ready", "structured-output"],
        )
        kernel = self._pr(
            "perf(moe): grouped GEMM for the fused MoE layer on B200", KERNEL_BODY, labels=[]
        )
        for pr, talk, review, people in (
            (corruption, 3, 8, 4),
            (grpc, 2, 10, 4),
            (reland, 2, 3, 3),
            (kernel, 1, 5, 3),
        ):
            self._talk(pr, talk, people)
            self._review(pr, review, people)
        for title in TWEAKS:
            body = PR_TEMPLATE.format(purpose=self.rng.choice(LINES), plan="", result="")
            tweak = self._pr(title, body, labels=["ready"] if self.rng.random() < 0.5 else [])
            self._talk(tweak, self.rng.choice([0, 0, 1, 2]), 1)
            self._review(tweak, self.rng.choice([0, 0, 1]), 1)
        bump = self._pr(
            "Bump actions/checkout from 4 to 5",
            "Bumps [actions/checkout](https://github.com/actions/checkout) from 4 to 5.",
            labels=["dependencies", "ci/build"],
            author="dependabot[bot]",
        )
        self._talk(bump, 1, 1)
        return RankingDay(
            start=self.start,
            end=self.end,
            issues=self.issues,
            comments=self.comments,
            review_comments=self.reviews,
            substantive_merged=frozenset(r["number"] for r in (corruption, grpc, reland, kernel)),
            substantive_open=frozenset(r["number"] for r in (garbage, slow)),
        )

    # -- rows -----------------------------------------------------------------------------

    def _moment(self, lo: float = 0.0, hi: float = 0.9) -> datetime:
        seconds = self.rng.randrange(int(lo * 86400), int(hi * 86400))
        return self.start + timedelta(seconds=seconds)

    def _row(self, title: str, body: str, labels: list[str], author: str, created: datetime) -> Row:
        self.number += 1
        n = self.number
        return {
            "number": n,
            "title": title,
            "body": body,
            "user": {"login": author, "type": "Bot" if author.endswith("[bot]") else "User"},
            "labels": [{"name": name} for name in labels],
            "state": "open",
            "state_reason": None,
            "comments": 0,
            "created_at": _iso(created),
            "updated_at": _iso(created),
            "closed_at": None,
            "author_association": "CONTRIBUTOR",
            "html_url": f"{WEB}/{REPO}/issues/{n}",
        }

    def _issue(
        self, title: str, body: str, labels: list[str] | None = None, *, old: bool = False
    ) -> Row:
        created = self.start - timedelta(days=20) if old else self._moment(0.0, 0.5)
        row = self._row(title, body, labels or ["bug"], self.rng.choice(self.people), created)
        self.issues.append(row)
        return row

    def _pr(self, title: str, body: str, labels: list[str], author: str = "") -> Row:
        created = self.start - timedelta(days=self.rng.randint(1, 6))
        merged = self._moment(0.1, 0.9)
        row = self._row(title, body, labels, author or self.rng.choice(self.people), created)
        row.update(
            state="closed",
            closed_at=_iso(merged),
            updated_at=_iso(merged),
            html_url=f"{WEB}/{REPO}/pull/{row['number']}",
            draft=False,
            pull_request={
                "merged_at": _iso(merged),
                "url": f"{API}/repos/{REPO}/pulls/{row['number']}",
            },
        )
        self.issues.append(row)
        return row

    def _when(self, row: Row) -> datetime:
        lo = max(self.start, datetime.fromisoformat(row["created_at"].replace("Z", "+00:00")))
        hi = self.end - timedelta(minutes=1)
        moment = lo + timedelta(seconds=self.rng.randint(60, int((hi - lo).total_seconds())))
        row["updated_at"] = max(row["updated_at"], _iso(moment))
        return moment

    def _talk(self, row: Row, count: int, people: int) -> None:
        who = self.rng.sample(self.people, people)
        for k in range(count):
            self.comment_id += 1
            moment = self._when(row)
            row["comments"] += 1
            self.comments.append(
                {
                    "id": self.comment_id,
                    "issue_url": f"{API}/repos/{REPO}/issues/{row['number']}",
                    "html_url": f"{row['html_url']}#issuecomment-{self.comment_id}",
                    "user": {"login": who[k % people], "type": "User"},
                    "created_at": _iso(moment),
                    "updated_at": _iso(moment),
                    "body": "Thanks, I can confirm this on my setup.",
                }
            )

    def _review(self, row: Row, count: int, people: int) -> None:
        who = self.rng.sample(self.people, people)
        first: int | None = None
        for k in range(count):
            self.review_id += 1
            moment = self._when(row)
            review: Row = {
                "id": self.review_id,
                "pull_request_url": f"{API}/repos/{REPO}/pulls/{row['number']}",
                "html_url": f"{WEB}/{REPO}/pull/{row['number']}#discussion_r{self.review_id}",
                "user": {"login": who[k % people], "type": "User"},
                "path": "vllm/v1/core/kv_cache_manager.py",
                "created_at": _iso(moment),
                "updated_at": _iso(moment),
                "body": "Can this race with the free-queue update in the same step?",
            }
            if first is not None:
                review["in_reply_to_id"] = first
            first = first or self.review_id
            self.reviews.append(review)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def ranking_analysis(day: RankingDay) -> Analysis:
    """The analysis of ``day`` as the mirror would give it (both comment streams)."""
    window = Window(day.start, day.end, "Asia/Shanghai", "ranking day")
    items = tuple(item_from_api(row, REPO) for row in day.issues)
    comments = [comment_from_api(row, REPO) for row in day.comments]
    comments += [review_comment_from_api(row, REPO) for row in day.review_comments]
    ordered = tuple(sorted(comments, key=lambda c: (c.created_at, c.id)))
    return analyze(WindowData(REPO, f"{WEB}/{REPO}", window, items, ordered), ())
