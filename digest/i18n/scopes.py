"""The words of a scope's report: its counts per repository, the totals, and what its
filters left out, and what the cap of an ``owner/*`` entry cut off. key: (zh, en)."""

from __future__ import annotations

from collections.abc import Mapping

SCOPES: Mapping[str, tuple[str, str]] = {
    "scope.counts.repo": ("{repo}：{counts}", "{repo}: {counts}"),
    "scope.counts.total": ("合计：{counts}", "Total: {counts}"),
    "scope.counts.filtered": ("过滤后：{counts}", "After filters: {counts}"),
    "scope.counts.total_filtered": ("合计（过滤后）：{counts}", "Total after filters: {counts}"),
    "scope.count.before": ("{count}（过滤前 {n}）", "{count} ({n} before filters)"),
    "scope.appendix.repo": ("{repo}（{n}）", "{repo} ({n})"),
    "scope.owner.cut": (
        "{owner}/*：窗口内有推送的仓库有 {active} 个，按上限只收录最近推送的 {cap} 个：{repos}。",
        "{owner}/*: {active} repositories were pushed to in the window; the cap of {cap} keeps "
        "the most recently pushed: {repos}.",
    ),
}
