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
    # what a sync left missing (digest.mirror.sync); times are UTC, ``{what}`` a stream below
    "sync.behind": ("{what}：{since} 之后的尚未同步", "{what} after {since} not synced yet"),
    "sync.unsearched": (
        "{start} 至 {end} 的 Issue 和 PR 尚未检索",
        "issues and PRs of {start} to {end} not searched yet",
    ),
    "sync.resets": ("GitHub 的速率限制于 {when} 重置", "GitHub's limit resets at {when}"),
    "sync.search_incomplete": (
        "GitHub 搜索 {span} 的结果不完整，计数可能偏低",
        "GitHub search gave incomplete results for {span}; counts may be low",
    ),
    "sync.items_skipped": (
        "{span} 期间有 {n} 个被讨论的条目未获取（超出请求预算），热门讨论可能不完整",
        "{n} items discussed in {span} were not fetched (over the request budget); "
        "hot discussions may be incomplete",
    ),
    "sync.comments_skipped": (
        "{span} 的{what}未获取（超出请求预算），热门讨论可能不完整",
        "{what} of {span} were not fetched (over the request budget); "
        "hot discussions may be incomplete",
    ),
    "sync.comments_after": (
        "{span} 中 {since} 之后发布的{what}未获取（超出请求预算），热门讨论可能不完整",
        "{what} of {span} posted after {since} were not fetched (over the request budget); "
        "hot discussions may be incomplete",
    ),
    "sync.reach_skipped": (
        "本期未含后续进展和趋势对比：镜像缺少 {start} 至 {end} 的数据，补齐约需 {n} 次 GitHub "
        "请求，超出本小时可用的 {left} 次（运行 vllm-report mirror backfill 可预先补齐）",
        "follow-ups and trend history left out: the mirror lacks {start} to {end}, which takes "
        "about {n} GitHub requests, more than the {left} this hour allows (vllm-report mirror "
        "backfill fetches it ahead)",
    ),
    "stream.issues": ("更新的 Issue 和 PR", "issues and PRs updated"),
    "stream.comments": ("评论", "comments"),
    "stream.review_comments": ("代码审查评论", "review comments"),
    "note.longest_span": (
        "检索了该时段的最后 {n} 天，这是最长的时间窗",
        "searched the last {n} days of that period, the longest window",
    ),
}
