"""Notes that say how an answer or a digest was degraded or narrowed, or when it completes.
key: (zh, en)."""

from __future__ import annotations

from collections.abc import Mapping

NOTES: Mapping[str, tuple[str, str]] = {
    "note.stale": (
        "无法连接 GitHub（{error}），以下回答来自 {when} 同步的镜像",
        "GitHub could not be reached ({error}); answered from the mirror as synced at {when}",
    ),
    "note.bad_repo": (
        "已忽略 repo:{repo}（请用 owner/name 格式）",
        "ignored repo:{repo} (use owner/name)",
    ),
    "note.first_terms": (
        "只检索了问题中的前 {n} 个词",
        "searched the first {n} words of the question",
    ),
    "note.longest_rolling": (
        "检索了最近 {n} 天，这是最长的时间窗",
        "searched the last {n} days, the longest window",
    ),
    "note.not_past": (
        "“{phrase}”不是过去的日期或时段，改为检索最近 {n} 天",
        "“{phrase}” is not a past date or period; searched the last {n} days",
    ),
    "note.completes": (
        "预计 {when} 之后完整：还需约 {n} 次 GitHub 请求，每小时可用 {rate} 次，届时再次生成即可"
        "（设置 GITHUB_TOKEN 可提高到每小时 5,000 次）",
        "complete after about {when}: about {n} more GitHub requests at {rate} an hour; build "
        "it again then (a GITHUB_TOKEN raises the limit to 5,000 an hour)",
    ),
    "note.longest_span": (
        "检索了该时段的最后 {n} 天，这是最长的时间窗",
        "searched the last {n} days of that period, the longest window",
    ),
}
