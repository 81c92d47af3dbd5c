"""Every zh/en word of the report website and its charts."""

from __future__ import annotations

from collections.abc import Mapping

from digest.i18n.catalog import fill, pick
from digest.models import Lang

# key: (zh, en)
SITE: Mapping[str, tuple[str, str]] = {
    # frame
    "site.title": ("开发动态报告", "Development Reports"),
    "site.repos": ("项目", "Repositories"),
    "site.scopes": ("生态报告", "Scopes"),
    "site.home": ("全部报告", "All reports"),
    "site.back": ("« 返回 {name} 报告", "« Back to {name} Reports"),
    "site.contents": ("目录", "Contents"),
    "site.previous": ("← 前一天", "← Previous day"),
    "site.next": ("后一天 →", "Next day →"),
    "site.other_lang": ("English", "中文"),
    "site.search": ("搜索", "Search"),
    "site.search_label": ("搜索报告", "Search the reports"),
    "site.search_noscript": (
        "搜索需要 JavaScript；报告本身无需 JavaScript 即可阅读。",
        "Search needs JavaScript; the reports themselves read without it.",
    ),
    "site.feed": ("订阅（Atom）", "Feed (Atom)"),
    "site.feed_title": ("{name} 开发动态报告", "{name} Development Reports"),
    "site.days": ("每日报告", "Daily reports"),
    "site.pending": ("待生成", "pending"),
    "site.pending_open": ("窗口尚未结束（{end} 结束）", "the window is still open (it ends {end})"),
    "site.pending_reason": ("尚未生成：{reason}", "not built yet: {reason}"),
    "site.failed.rate_limited": (
        "GitHub 的速率限制已用尽（{reset} 重置），下次构建时生成",
        "GitHub's rate limit is used up (it resets {reset}); the next build makes it",
    ),
    "site.failed.rate_limited_unknown": (
        "GitHub 的速率限制已用尽，下次构建时生成",
        "GitHub's rate limit is used up; the next build makes it",
    ),
    "site.failed.unreachable": (
        "暂时无法连接 GitHub，下次构建时生成",
        "GitHub could not be reached; the next build makes it",
    ),
    "site.failed.search": (
        "GitHub 搜索拒绝了此仓库的查询（{status}）",
        "GitHub's search refused this repository's query ({status})",
    ),
    "site.failed.not_found": (
        "GitHub 上找不到此仓库",
        "the repository is not on GitHub",
    ),
    "site.failed.refused": ("此仓库不在允许列表中", "the repository is not allowed"),
    "site.failed.other": ("生成失败（{error}）", "the report could not be built ({error})"),
    "site.latest": ("最新报告", "Latest report"),
    "site.no_days": ("还没有报告。", "No reports yet."),
    "site.provenance": ("来源", "Provenance"),
    "site.view_on_github": ("在 GitHub 上查看", "on GitHub"),
    "site.n_days": ("{n} 天", "{n} days"),
    "site.lang_name": ("中文", "English"),
    "site.data_table": ("图表数据", "Chart data"),
    "site.original": ("原文", "Original words"),
    "site.date": ("日期", "Date"),
    "site.hour": ("小时", "Hour"),
    "site.empty_list": ("无", "None"),
    "site.page_link": ("📄 网页版", "📄 On the web"),
    # archive: months, years, topics
    "site.recent_days": ("最近 {n} 天", "The last {n} days"),
    "site.months": ("按月归档", "By month"),
    "site.years": ("按年归档", "By year"),
    "site.month": ("{year} 年 {month_name}", "{month_name} {year}"),
    "site.year": ("{year} 年", "{year}"),
    "site.month_title": ("{name} 报告：{period}", "{name} reports: {period}"),
    "site.n_reports": ("{n} 天报告", "{n} days of reports"),
    "site.topics": ("关注主题", "Focus topics"),
    "site.topic_title": ("{name} 报告：{topic}", "{name} reports: {topic}"),
    "site.topic_feed_title": ("{name} 报告：{topic}", "{name} reports: {topic}"),
    "site.topic_items": ("{n} 条相关条目", "{n} items"),
    "site.topic_none": ("这个主题还没有条目。", "No items on this topic yet."),
    "site.topic_day": ("{date} 报告中的{topic}", "{topic} in the report of {date}"),
    # charts
    "chart.opened_issues": ("新 Issue", "Opened issues"),
    "chart.opened_prs": ("新 PR", "Opened PRs"),
    "chart.merged_prs": ("合并 PR", "Merged PRs"),
    "chart.comments": ("评论", "Comments"),
    "chart.new_issues": ("新 Issue", "New issues"),
    "chart.closed_issues": ("关闭 Issue", "Closed issues"),
    "chart.new_prs": ("新 PR", "New PRs"),
    "chart.closed_unmerged_prs": ("关闭未合并 PR", "Closed unmerged PRs"),
    "chart.items": ("条目", "Items"),
    "chart.activity_title": ("每小时活动（{tz}）", "Activity per hour ({tz})"),
    "chart.activity_summary": (
        "本时段新 Issue {issues} 个、新 PR {prs} 个、合并 PR {merged} 个、评论 {comments} 条；"
        "最活跃的时段为 {hour} 时。",
        "{issues} issues and {prs} PRs opened, {merged} PRs merged and {comments} comments "
        "posted; the busiest hour started at {hour}:00.",
    ),
    "chart.days_title": ("最近 {n} 天", "The last {n} days"),
    "chart.days_summary": (
        "{days} 天内共新 Issue {issues} 个、新 PR {prs} 个、合并 PR {merged} 个。",
        "Over {days} days: {issues} issues and {prs} PRs opened, {merged} PRs merged.",
    ),
    "chart.topic_title": ("{topic}：每日条目", "{topic}: items per day"),
    "chart.topic_summary": (
        "{days} 天内共 {n} 条相关条目。",
        "{n} items over {days} days.",
    ),
    "chart.topic_title_months": ("{topic}：每月条目", "{topic}: items per month"),
    "chart.topic_summary_months": (
        "{months} 个月内共 {n} 条相关条目。",
        "{n} items over {months} months.",
    ),
}


MONTHS_EN: tuple[str, ...] = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
MONTH_NAMES: tuple[tuple[str, str], ...] = tuple(
    (f"{n} 月", name) for n, name in enumerate(MONTHS_EN, start=1)
)


def month_label(year: int, month: int, lang: Lang) -> str:
    """A month as a heading: ``2026 年 3 月``, ``March 2026``."""
    return site_t("site.month", lang, year=year, month_name=pick(MONTH_NAMES[month - 1], lang))


def site_t(key: str, lang: Lang, /, **values: object) -> str:
    """The website phrase ``key`` in ``lang`` filled with ``values``."""
    return fill(pick(SITE[key], lang), values)
