"""Two realistic vLLM days, written out by hand in the GitHub API's row shape, and what a
reader must find in them.

The shape is that of real vLLM days: a PR whose only comments are "Rebased on main.", "CI
failure looks unrelated.", "LGTM", "+1", "any update?" and bot notices; a maintainer's question
the reporter answers an hour later, then a workaround; sibling PRs (same body, a "v2", one
superseded); AMD engineers known by a ``-amd`` login or only by their profile's ``company``;
``author_association`` on every issue and comment; merges whose body only repeats the title;
numbers in bodies (TTFT, tokens/s, % before → after); code blocks in descriptions.

API::

    from tests.support.vllm_days import DAYS, day_analysis, day_data

    DAYS                 the two days' labels ("2026-01-20", "2026-01-21")
    rows()               (issue rows, comment rows, review-comment rows) of both days
    window(label)        the Window of day ``label`` (Asia/Shanghai)
    day_data(label)      WindowData of that day (every row of both days, its comments)
    day_analysis(label)  Analysis of that day with the default rocm topic, the configured
                         organisation map, glossary and the profiles' companies
    PROFILES             {login: company} of the GitHub profiles (``GET /users/{login}``)
    BOILERPLATE[label]   the PR whose thread is boilerplate only (never hot)
    ANSWERED[label]      the issue whose maintainer's question was answered (never open)
    TITLE_ONLY[label]    merged PRs whose body repeats their title (never a key change)
    SIBLINGS[label]      PR numbers that are versions of one change (grouped)
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from config.settings import load_config
from digest.analysis.analyze import analyze
from digest.analysis.types import Analysis, WindowData
from digest.github.parse import comment_from_api, item_from_api, review_comment_from_api
from digest.models import Window
from tests.support.analysis_sample import REPO, REPO_URL, rocm

API = "https://api.github.com"
DAYS = ("2026-01-20", "2026-01-21")
_START = {
    DAYS[0]: datetime(2026, 1, 19, 16, 0, tzinfo=UTC),  # 00:00 in Asia/Shanghai
    DAYS[1]: datetime(2026, 1, 20, 16, 0, tzinfo=UTC),
}
Row = dict[str, Any]

PROFILES = {
    "gshtras": "@AMD",
    "hongxiayang": "AMD",
    "mgoin": "Red Hat",
    "youkaichao": "",
    "wkchen": "UC Berkeley",
}

_BOTS = {"github-actions[bot]", "mergify[bot]"}
_WELCOME = (
    "👋 Hi! Thank you for contributing to the vLLM project.\n\n💬 Join our developer Slack at "
    "https://slack.vllm.ai to discuss your PR in #pr-reviews."
)
_CONFLICT = "This pull request has merge conflicts that must be resolved before it can be merged."

BOILERPLATE = {DAYS[0]: 41002, DAYS[1]: 41102}
ANSWERED = {DAYS[0]: 41001, DAYS[1]: 41101}
TITLE_ONLY = {DAYS[0]: frozenset({41006, 41007}), DAYS[1]: frozenset({41106})}
SIBLINGS = {DAYS[0]: frozenset({41004, 41005}), DAYS[1]: frozenset({41104, 41105})}


@dataclass(slots=True)
class _Rows:
    """The rows of both days, filled by the day writers below."""

    issues: list[Row] = field(default_factory=list)
    comments: list[Row] = field(default_factory=list)
    reviews: list[Row] = field(default_factory=list)
    next_id: int = 4_100_000_000

    def item(
        self,
        number: int,
        title: str,
        author: str,
        association: str,
        at: datetime,
        body: str,
        *,
        pr: bool = False,
        labels: tuple[str, ...] = (),
        merged: datetime | None = None,
        closed: datetime | None = None,
        reason: str | None = None,
    ) -> None:
        closed = closed or merged
        page = "pull" if pr else "issues"
        row: Row = {
            "url": f"{API}/repos/{REPO}/issues/{number}",
            "html_url": f"{REPO_URL}/{page}/{number}",
            "id": 3_000_000_000 + number,
            "number": number,
            "title": title,
            "user": _user(author),
            "labels": [{"name": name} for name in labels],
            "state": "closed" if closed else "open",
            "comments": 0,
            "created_at": _iso(at),
            "updated_at": _iso(closed or at),
            "closed_at": _iso(closed),
            "author_association": association,
            "body": body,
            "state_reason": reason if closed and not pr else None,
        }
        if pr:
            row["draft"] = False
            row["pull_request"] = {
                "url": f"{API}/repos/{REPO}/pulls/{number}",
                "html_url": f"{REPO_URL}/pull/{number}",
                "merged_at": _iso(merged),
            }
        self.issues.append(row)

    def talk(self, number: int, at: datetime, *lines: tuple[str, str, str, int]) -> None:
        """Comments on ``number``: (login, association, body, minutes after ``at``)."""
        row = next(r for r in self.issues if r["number"] == number)
        for login, association, body, minutes in lines:
            moment = at + timedelta(minutes=minutes)
            self.next_id += 1
            self.comments.append(
                {
                    "id": self.next_id,
                    "html_url": f"{REPO_URL}/issues/{number}#issuecomment-{self.next_id}",
                    "issue_url": f"{API}/repos/{REPO}/issues/{number}",
                    "user": _user(login),
                    "created_at": _iso(moment),
                    "updated_at": _iso(moment),
                    "author_association": association,
                    "body": body,
                }
            )
            row["comments"] += 1
            row["updated_at"] = max(row["updated_at"], _iso(moment) or "")

    def review(self, number: int, at: datetime, login: str, association: str, body: str) -> None:
        """An inline review comment on PR ``number``."""
        self.next_id += 1
        self.reviews.append(
            {
                "id": self.next_id,
                "html_url": f"{REPO_URL}/pull/{number}#discussion_r{self.next_id}",
                "pull_request_url": f"{API}/repos/{REPO}/pulls/{number}",
                "path": "vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py",
                "user": _user(login),
                "created_at": _iso(at),
                "updated_at": _iso(at),
                "author_association": association,
                "body": body,
            }
        )


def _user(login: str) -> Row:
    kind = "Bot" if login in _BOTS else "User"
    return {"login": login, "id": zlib.crc32(login.encode()) % 10**8, "type": kind}


def _iso(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _boilerplate(rows: _Rows, number: int, at: datetime, title: str) -> None:
    """A PR whose nine comments say nothing: rebases, CI chatter, approvals, pings, bots."""
    rows.item(number, title, "alexm-redhat", "CONTRIBUTOR", at, _purpose(title), pr=True)
    rows.talk(
        number,
        at,
        ("github-actions[bot]", "NONE", _WELCOME, 1),
        ("alexm-redhat", "CONTRIBUTOR", "Rebased on main.", 30),
        ("alexm-redhat", "CONTRIBUTOR", "CI failure looks unrelated.", 90),
        ("njhill", "MEMBER", "LGTM", 120),
        ("ravi-kumar", "NONE", "+1", 150),
        ("ravi-kumar", "NONE", "any update?", 300),
        ("mergify[bot]", "NONE", _CONFLICT, 320),
        ("alexm-redhat", "CONTRIBUTOR", "Rebased and re-pushed.", 400),
        ("alexm-redhat", "CONTRIBUTOR", "/ready", 401),
    )


def _purpose(title: str, extra: str = "") -> str:
    subject = title.split("] ", 1)[-1]
    return (
        f"## Purpose\n\n{subject}. The code path allocated a temporary buffer on every step; "
        f"this keeps one buffer per worker and reuses it across steps.{extra}\n\n"
        "## Test Plan\n\n`pytest tests/v1/worker -q` and a serving benchmark.\n"
    )


def _write_day(rows: _Rows, label: str) -> None:
    """One day: a ROCm bug thread answered and worked around, a boilerplate PR, a reviewed
    AITER PR, siblings, title-only merges, measured merges and theme filler."""
    start = _START[label]
    base = 41000 if label == DAYS[0] else 41100
    h = lambda hours: start + timedelta(hours=hours)  # noqa: E731
    model = "DeepSeek-V3.2" if label == DAYS[0] else "Qwen3.5-397B-A17B"

    # 1. The reporter's bug: a maintainer asks, the reporter answers an hour later, a workaround.
    rows.item(
        base + 1,
        f"[Bug]: {model} hangs at startup on MI300X with AITER MoE enabled",
        "ravi-kumar",
        "NONE",
        h(1),
        "### Your current environment\n\n<details><summary>env</summary>\n\n```text\n"
        "ROCm 7.0, vLLM 0.14.0\n```\n</details>\n\n### 🐛 Describe the bug\n\n"
        f"Serving {model} with `VLLM_ROCM_USE_AITER=1` hangs while capturing CUDA graphs on "
        "8x MI300X. Without AITER the server starts in 4 minutes.\n",
        labels=("bug", "rocm"),
    )
    rows.talk(
        base + 1,
        h(1),
        (
            "youkaichao",
            "MEMBER",
            "Could you share the full launch command and the output of `python collect_env.py`? "
            "Which AITER version are you on?",
            40,
        ),
        (
            "ravi-kumar",
            "NONE",
            f"Launch command: `vllm serve {model} -tp 8 --max-model-len 32768`. AITER 0.1.5, "
            "ROCm 7.0. It hangs at graph capture for batch size 512 every time; steps to "
            "reproduce are in the first post.",
            100,
        ),
        (
            "hongxiayang",
            "CONTRIBUTOR",
            "I can reproduce this on MI300X with AITER 0.1.5: the fused MoE kernel waits on a "
            "barrier that is never reached when the batch size is 512. The root cause is the "
            "padding in `rocm_aiter_fused_moe.py`.",
            180,
        ),
        (
            "gshtras",
            "CONTRIBUTOR",
            "As a workaround, setting `--max-num-seqs 256` avoids the hang; capture takes "
            "3.1 s instead of timing out. A fix for the padding is coming.",
            240,
        ),
        ("ravi-kumar", "NONE", "+1", 250),
        ("ravi-kumar", "NONE", "Thanks!", 260),
    )

    # 2. The boilerplate-only PR: many comments, no heat.
    _boilerplate(rows, base + 2, h(2), "[Core] Reuse the block table buffer across steps")

    # 3. A reviewed AITER PR by an AMD engineer, measured, merged.
    rows.item(
        base + 3,
        "[ROCm][Perf] Use AITER fused MoE for FP8 block-scaled experts",
        "tjtanaa-amd",
        "CONTRIBUTOR",
        h(3),
        "## Purpose\n\nThe FP8 block-scaled MoE path on ROCm fell back to Triton, which fails "
        "to start with\n\n```\nRuntimeError: no kernel image is available\n```\n\n"
        "This PR routes FP8 block-scaled experts to the AITER fused MoE kernel on MI300X and "
        f"MI355X.\n\n## Test Result\n\n| metric | main | this PR |\n|---|---|---|\n"
        f"| TTFT | 412 ms | 268 ms |\n| throughput | 1510 tok/s | 1890 tok/s |\n\n"
        f"Accuracy on GSM8K is unchanged (0.951 → 0.952) with {model}.\n",
        pr=True,
        labels=("rocm", "performance", "ready"),
        merged=h(20),
    )
    rows.review(
        base + 3,
        h(5),
        "mgoin",
        "MEMBER",
        "Why not keep the Triton path as a fallback "
        "when AITER is not installed? Otherwise users without AITER lose FP8 MoE.",
    )
    rows.talk(
        base + 3,
        h(3),
        ("github-actions[bot]", "NONE", _WELCOME, 1),
        (
            "tjtanaa-amd",
            "CONTRIBUTOR",
            "Good point, I updated the dispatch in `rocm_aiter_fused_moe.py`: without AITER the "
            "Triton path is used, and a test covers both branches.",
            180,
        ),
        (
            "mgoin",
            "MEMBER",
            f"Verified on MI300X with {model}: TTFT 412 ms → 268 ms, the numbers match. Approving.",
            600,
        ),
    )

    # 4-5. Two versions of one change: the same body, the second a "v2" superseding the first.
    sibling_body = (
        "## Purpose\n\nThe MLA attention backend on ROCm did not register its full CUDA graph "
        "support, so every decode step ran eagerly. This PR declares the support and adds the "
        "missing padding for the decode batch, which makes full graph capture work on MI300X "
        "and MI325X.\n\n## Test Plan\n\n`pytest tests/v1/attention -k mla` on MI300X.\n"
    )
    rows.item(
        base + 4,
        "[ROCm] Enable full CUDA graph mode for MLA attention",
        "gshtras",
        "CONTRIBUTOR",
        h(4),
        sibling_body,
        pr=True,
        labels=("rocm",),
        closed=h(9),
    )
    rows.item(
        base + 5,
        "[ROCm] Enable full CUDA graph mode for MLA attention v2",
        "gshtras",
        "CONTRIBUTOR",
        h(9),
        sibling_body + f"\nSupersedes #{base + 4}.\n",
        pr=True,
        labels=("rocm",),
    )
    rows.talk(base + 4, h(4), ("gshtras", "CONTRIBUTOR", f"Superseded by #{base + 5}.", 300))

    # 6-7. Merges whose description only repeats their title.
    for number, title in (
        (base + 6, "[Misc] Fix typo in the scheduler log message"),
        (base + 7, "[Bugfix] Fix the import of the tool parser"),
    ):
        if label == DAYS[1] and number == base + 7:
            continue
        subject = title.split("] ", 1)[-1]
        rows.item(number, title, "jeejeelee", "MEMBER", h(6), subject, pr=True, merged=h(8))

    # 8. A merged change with numbers and a code block before its purpose.
    rows.item(
        base + 8,
        "[Frontend] Move the gRPC server into its own package",
        "wkchen",
        "COLLABORATOR",
        h(2),
        "```\nvllm/entrypoints/grpc/\n```\n\n## What this PR does\n\nThe gRPC server moves "
        "from the OpenAI entrypoint into `vllm/entrypoints/grpc`, so that the proto "
        "compilation runs only when the server is installed. Startup of `vllm serve` drops "
        "from 9.2 s to 7.8 s.\n",
        pr=True,
        labels=("frontend", "ready"),
        merged=h(12),
    )

    # 9-20. Items that make up the day's themes (MoE, speculative decoding, LoRA).
    themes = (
        ("[Kernel] Tune fused MoE configs for {m} on H200", True, "moe"),
        ("[Bug]: fused MoE returns NaN for {m} with expert parallel", False, "moe"),
        ("[Perf] Faster MoE align for large expert counts", True, "moe"),
        ("[Bug]: MoE routing mismatch for {m} under TP=8", False, "moe"),
        ("[Spec Decode] EAGLE-3 drafts for {m}", True, "spec"),
        ("[Bug]: speculative decoding acceptance rate drops with prefix caching", False, "spec"),
        ("[Spec Decode] Fix MTP draft lengths with chunked prefill", True, "spec"),
        ("[LoRA] Support LoRA adapters for {m}", True, "lora"),
        ("[Bug]: LoRA adapter loading fails with FP8 weights", False, "lora"),
        ("[Doc] Document the LoRA resolver plugins", True, "lora"),
    )
    for offset, (title, pr, _) in enumerate(themes):
        number = base + 9 + offset
        text = title.format(m=model)
        body = (
            f"## Purpose\n\n{text.split('] ', 1)[-1]}: {_CHANGES[offset]}\n"
            if pr
            else f"### 🐛 Describe the bug\n\n{text.split(': ', 1)[-1]} on H100 since 0.14.0. "
            "Steps to reproduce: start the server and send 64 concurrent requests.\n"
        )
        merged = h(10 + offset) if pr and offset % 2 == 0 else None
        rows.item(
            number,
            text,
            ("lucas-wang", "hao-zhang", "mei-chen")[offset % 3],
            ("CONTRIBUTOR", "NONE", "MEMBER")[offset % 3],
            h(1 + offset),
            body,
            pr=pr,
            labels=("bug",) if not pr else (),
            merged=merged,
        )
        if not pr:
            rows.talk(
                number,
                h(1 + offset),
                ("mei-chen", "MEMBER", "Can you post the stack trace?", 30),
            )


_CHANGES = (
    "the tuned tile sizes for 256 experts raise decode throughput from 2400 to 2710 tokens/s.",
    "",
    "the alignment kernel sorts token ids per block, cutting its time from 310 µs to 120 µs.",
    "",
    "EAGLE-3 heads load from the draft checkpoint and reach an acceptance rate of 0.62.",
    "",
    "draft lengths are now clamped to the chunk budget, so MTP no longer overruns a chunk.",
    "adapters register their target modules for the MoE experts and attention layers.",
    "",
    "the resolver plugin page lists each entry point with one example configuration.",
)


def _rows() -> _Rows:
    rows = _Rows()
    for label in DAYS:
        _write_day(rows, label)
    return rows


def rows() -> tuple[list[Row], list[Row], list[Row]]:
    """Issue, comment and review-comment rows of both days, for a fake GitHub."""
    written = _rows()
    return written.issues, written.comments, written.reviews


def window(label: str) -> Window:
    """Day ``label`` in Asia/Shanghai."""
    return Window(_START[label], _START[label] + timedelta(days=1), "Asia/Shanghai", label)


def day_data(label: str) -> WindowData:
    """The window of day ``label`` over the rows of both days."""
    issues, talk, reviews = rows()
    day = window(label)
    items = tuple(item_from_api(row, REPO) for row in issues)
    comments = tuple(comment_from_api(row, REPO) for row in talk) + tuple(
        review_comment_from_api(row, REPO) for row in reviews
    )
    return WindowData(REPO, REPO_URL, day, items, comments, day.end)


def day_analysis(label: str) -> Analysis:
    """The analysis of day ``label`` with the configured organisations and glossary."""
    config = load_config()
    return analyze(
        day_data(label),
        (rocm(),),
        organisations=config.organisation_map(),
        glossary=config.glossary_for(REPO),
    )
