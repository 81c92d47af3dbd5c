"""The one line a scheduled post of a scope says on a day with nothing in its window (after
its filters, when it has some). key: (zh, en)."""

from __future__ import annotations

from collections.abc import Mapping

QUIET: Mapping[str, tuple[str, str]] = {
    "quiet.scope": (
        "{name} 今日无动态：{window} 内 {repos} 均没有新建或关闭的 Issue 与 PR。",
        "Quiet day in {name}: no new or closed issues or pull requests in {repos} in {window}.",
    ),
    "quiet.scope_filtered": (
        "{name} 今日无动态：{window} 内（过滤后）{repos} 均没有新建或关闭的 Issue 与 PR。",
        "Quiet day in {name}: no new or closed issues or pull requests in {repos} in {window}"
        " (after its filters).",
    ),
}
