"""The fixed strings of the report in zh and en."""

from __future__ import annotations

import pytest

from digest.i18n import (
    Note,
    count_of,
    counts_line,
    heading,
    list_title,
    norm_lang,
    report_title,
    t,
)
from digest.models import Counts
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


def test_title_and_counts_line() -> None:
    """The report title and the counts line read like the reference report."""
    counts = Counts(38, 28, 115, 34, 42)
    assert report_title("vLLM", "2026-03-10", "zh") == "vLLM 开发动态报告 - 2026-03-10"
    assert report_title("vLLM", "2026-03-10", "en") == "vLLM Development Report - 2026-03-10"
    assert counts_line(counts, "zh") == (
        "新 Issue 38 | 关闭 Issue 28 | 新 PR 115 | 合并 PR 34 | 关闭未合并 PR 42"
    )
    assert counts_line(counts, "en") == (
        "New issues 38 | Closed issues 28 | New PRs 115 | Merged PRs 34 | Closed unmerged PRs 42"
    )


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


def test_languages_and_plurals() -> None:
    """Chinese tags map to zh, anything else to en; English counts agree in number."""
    assert norm_lang("zh-CN") == "zh" and norm_lang("EN") == "en" and norm_lang("fr") == "en"
    assert count_of(1, "issue", "en") == "1 issue"
    assert count_of(3, "person", "en") == "3 people"
    assert count_of(3, "issue", "zh") == "3 个 Issue"


def test_values_are_not_parsed_again() -> None:
    """A value that looks like a placeholder is inserted literally."""
    assert t("report.title", "en", name="{date}", date="2026-03-10") == (
        "{date} Development Report - 2026-03-10"
    )


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            "review comments of 2026-03-10..2026-03-11 were not fetched (over the request "
            "budget); hot discussions may be incomplete",
        ),
        ("zh", "2026-03-10..2026-03-11 的代码审查评论未获取（超出请求预算），热门讨论可能不完整"),
    ],
)
def test_a_note_is_said_in_the_readers_language(lang: str, expected: str) -> None:
    """A sync's note is kept as a key and values and said in each reader's language; what is
    missing is named from the catalog too."""
    note = Note(
        "sync.comments_skipped",
        (("what", "stream.review_comments"), ("span", "2026-03-10..2026-03-11")),
    )
    assert note.text(lang) == expected
