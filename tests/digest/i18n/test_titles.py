"""The names of things in the report: its title, section headings, lists, topics."""

from __future__ import annotations

import pytest

from digest.i18n import heading, list_title, report_title, topic_noun
from tests.support.analysis_sample import rocm

# Exactly as docs/design.md (The report) writes them.
ZH_HEADINGS = {
    "summary": "📊 每日开发状态摘要",
    "topic:rocm": "🎯 AMD/ROCm 生态相关动态",
    "hot": "💬 高热度讨论分析",
    "trends": "🔥 热门话题与趋势分析",
    "key_changes": "🛠️ 重点技术变更",
    "activity": "📈 开发活跃度观察",
    "watch": "💡 值得关注的问题",
    "appendix": "📋 附录：详细数据列表",
}
EN_HEADINGS = {
    "summary": "📊 Daily summary",
    "topic:rocm": "🎯 AMD/ROCm ecosystem",
    "hot": "💬 Hot discussions",
    "trends": "🔥 Trends",
    "key_changes": "🛠️ Key technical changes",
    "activity": "📈 Activity",
    "watch": "💡 Worth watching",
    "appendix": "📋 Appendix",
}


@pytest.mark.parametrize(("lang", "expected"), [("zh", ZH_HEADINGS), ("en", EN_HEADINGS)])
def test_headings(lang: str, expected: dict[str, str]) -> None:
    """Section headings are exactly the design's, the topic's from its configured title."""
    assert {sid: heading(sid, lang, rocm()) for sid in expected} == expected


def test_report_title() -> None:
    """The report title reads like the reference report."""
    assert report_title("vLLM", "2026-03-10", "zh") == "vLLM 开发动态报告 - 2026-03-10"
    assert report_title("vLLM", "2026-03-10", "en") == "vLLM Development Report - 2026-03-10"


def test_list_titles() -> None:
    """The five appendix lists carry the names docs/design.md gives them."""
    keys = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
    assert [list_title(k, "zh") for k in keys] == [
        "新增 Issue",
        "已关闭 Issue",
        "新增 PR",
        "已合并 PR",
        "关闭但未合并的 PR",
    ]


def test_a_topic_as_a_noun() -> None:
    """In a sentence a topic drops 相关动态 from its Chinese title; its English one stays."""
    assert topic_noun(rocm(), "zh") == "AMD/ROCm 生态"
    assert topic_noun(rocm(), "en") == "AMD/ROCm ecosystem"
