"""The names of things in the report: its title, section headings, topics, groups, lists."""

from __future__ import annotations

from collections.abc import Mapping

from digest.i18n.catalog import pick, t
from digest.models import Digest, Lang, Topic
from digest.windows import title_date

TOPIC_PREFIX = "🎯 "

_HEADINGS: Mapping[str, tuple[str, str]] = {
    "summary": ("📊 每日开发状态摘要", "📊 Daily summary"),
    "followups": ("🔁 后续进展", "🔁 Follow-ups"),
    "hot": ("💬 高热度讨论分析", "💬 Hot discussions"),
    "trends": ("🔥 热门话题与趋势分析", "🔥 Trends"),
    "key_changes": ("🛠️ 重点技术变更", "🛠️ Key technical changes"),
    "activity": ("📈 开发活跃度观察", "📈 Activity"),
    "watch": ("💡 值得关注的问题", "💡 Worth watching"),
    "appendix": ("📋 附录：详细数据列表", "📋 Appendix"),
}
_LIST_TITLES: Mapping[str, tuple[str, str]] = {
    "new_issues": ("新增 Issue", "New issues"),
    "closed_issues": ("已关闭 Issue", "Closed issues"),
    "new_prs": ("新增 PR", "New PRs"),
    "merged_prs": ("已合并 PR", "Merged PRs"),
    "closed_unmerged_prs": ("关闭但未合并的 PR", "PRs closed without merging"),
}
_GROUPS: Mapping[str, tuple[str, str]] = {
    "performance": ("性能与内核", "Performance & kernels"),
    "fixes": ("Bug 修复与稳定性", "Bug fixes & stability"),
    "ecosystem": ("生态与需求", "Ecosystem & requests"),
}
_TREND_KINDS: Mapping[str, tuple[str, str]] = {
    "model": ("模型", "model"),
    "feature": ("特性", "feature"),
    "hardware": ("硬件/平台", "hardware"),
    "theme": ("主题", "theme"),
}


def heading(section_id: str, lang: Lang, topic: Topic | None = None) -> str:
    """The heading of a section: ``📊 每日开发状态摘要``, ``🎯 AMD/ROCm 生态相关动态``…"""
    if section_id.startswith("topic:"):
        if topic is None:
            return TOPIC_PREFIX + section_id.split(":", 1)[1]
        return TOPIC_PREFIX + topic_title(topic, lang)
    return pick(_HEADINGS[section_id], lang)


def topic_title(topic: Topic, lang: Lang) -> str:
    """The topic's own title in ``lang`` (``AMD/ROCm 生态相关动态``)."""
    return pick((topic.title_zh, topic.title_en), lang)


def topic_noun(topic: Topic, lang: Lang) -> str:
    """The topic as a noun for sentences: ``AMD/ROCm 生态`` / ``AMD/ROCm ecosystem``."""
    title = topic_title(topic, lang).strip()
    if lang == Lang.ZH:
        for suffix in ("相关动态", "动态", "相关"):
            if title.endswith(suffix) and len(title) > len(suffix):
                return title[: -len(suffix)].strip()
    return title


def digest_title(digest: Digest) -> str:
    """``vLLM Development Report - 2026-03-10`` / ``vLLM 开发动态报告 - 2026-03-10``."""
    return report_title(digest.shown_name, title_date(digest.window), digest.lang)


def report_title(display_name: str, date: str, lang: Lang) -> str:
    """``vLLM 开发动态报告 - 2026-03-10`` / ``vLLM Development Report - 2026-03-10``."""
    return t("report.title", lang, name=display_name, date=date)


def list_title(key: str, lang: Lang) -> str:
    """The appendix list name of ``key`` (``新增 Issue``, ``关闭但未合并的 PR``…)."""
    return pick(_LIST_TITLES[key], lang)


def group_title(group: str, lang: Lang) -> str:
    """The topic group name: ``性能与内核`` / ``Performance & kernels``…"""
    return pick(_GROUPS[group], lang)


def trend_kind(kind: str, lang: Lang) -> str:
    """The name of a trend kind (model, feature, hardware, theme)."""
    return pick(_TREND_KINDS.get(kind, (kind, kind)), lang)
