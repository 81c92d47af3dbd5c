"""The substance checks: echoes of the prompt, language, length, counts and citations."""

from __future__ import annotations

import pytest

from digest.llm import prompts, substance
from digest.llm.grounding import Grounds
from digest.llm.reasons import Reason
from digest.llm.substance import Prompt
from digest.writers.llm.kinds import KINDS
from tests.support.llm_samples import window_data

SUMMARY = KINDS["summary"]
ECHO = Prompt.of(SUMMARY.schema, [prompts.system("vllm-project/vllm", "en"), SUMMARY.task])


def _reasons(problems: list[substance.Problem]) -> list[Reason]:
    return [p.reason for p in problems]


@pytest.mark.parametrize(
    "text",
    [
        "One paragraph of 3-5 sentences",
        "one paragraph of 3-5 sentences.",
        "Summary: one paragraph of 3-5 sentences about today.",
        "text",
        "See #NUMBER by @login",
        "Write the report's daily summary: one paragraph of 3-5 sentences on the day's volume",
        "Use only the given data. Cite an item only as #NUMBER with a number from the data",
    ],
    ids=["placeholder", "lower", "inside", "bare-hint", "tokens", "task", "rules"],
)
def test_echoes_of_the_prompt_are_caught(text: str) -> None:
    """Placeholders of the answer format and copied instructions are echoes."""
    assert Reason.ECHO in _reasons(ECHO.echoes([text]))


def test_a_real_summary_is_not_an_echo() -> None:
    """Ordinary prose about the data, with the same words here and there, is no echo."""
    text = (
        "The day saw 12 new issues and 30 new PRs; 5 sentences of review went into #12, and "
        "the summary of the ROCm work is that the attention backend now builds on MI300X."
    )
    assert ECHO.echoes([text]) == []


@pytest.mark.parametrize(
    ("text", "lang", "ok"),
    [
        ("#12 修复了 ROCm 上 `FP8` 的注意力后端问题，由 @carol 推进。", "zh", True),
        ("本次 Qwen3.5 与 DeepSeek-V3 的 MoE 内核在 MI300X 上提速。", "zh", True),
        ("修复了 ROCm 上 MI300X 的 AITER MoE 挂起问题，TTFT 从 412 ms 降到 268 ms。", "zh", True),
        ("#12 修复了 ROCm 上 `FP8` 的 attention backend 问题，由 @carol 推进。", "zh", False),
        ("This PR fixes the ROCm attention backend for Qwen3.5 on MI300X.", "zh", False),
        ("The ROCm attention backend was fixed in #12 by @carol.", "en", True),
        ("本次合并修复了注意力后端的问题。", "en", False),
        ("Merged #12: 修复 ROCm 问题 (`gfx942`).", "en", True),
    ],
    ids=[
        "zh-names",
        "zh-models",
        "zh-numbers",
        "zh-english-terms",
        "en-for-zh",
        "en",
        "zh-for-en",
        "en-quoting",
    ],
)
def test_the_language_is_the_one_asked_for(text: str, lang: str, ok: bool) -> None:
    """zh is 40 % Chinese by the template's measure (a name counts one, an English word its
    letters): names and numbers pass, English terms a glossary names in Chinese do not; en
    is mostly not Chinese."""
    assert (substance.language([text], lang) == []) is ok


def test_length_bounds() -> None:
    """One word is too short, a wall is too long; Chinese characters count double."""
    assert _reasons(substance.length(["Fine."], least=40, most=400, field_most=400)) == [
        Reason.LENGTH
    ]
    assert substance.length(["今天" * 12], least=40, most=400, field_most=400) == []
    wall = "word " * 200
    assert _reasons(substance.length([wall], least=40, most=4000, field_most=400)) == [
        Reason.LENGTH
    ]


COUNTS = {
    "new_issues": 12,
    "closed_issues": 3,
    "new_prs": 40,
    "merged_prs": 21,
    "closed_unmerged_prs": 0,
}


def test_a_summary_states_every_count() -> None:
    """All counts that are not zero must appear as given; #numbers do not count as counts."""
    said = "12 issues were opened and 3 closed; 40 PRs were opened and 21 merged (see #21)."
    assert substance.counts(said, COUNTS) == []
    missing = substance.counts("12 issues were opened and 3 closed; see #40 and #21.", COUNTS)
    assert _reasons(missing) == [Reason.COUNTS]
    assert "new_prs=40" in missing[0].text and "merged_prs=21" in missing[0].text
    zh = "新增 Issue 12 个，关闭 3 个；新 PR 40 个，合并 21 个。"
    assert substance.counts(zh, COUNTS) == []


def test_an_item_section_cites_one_of_its_items() -> None:
    """Citing none of the items given is a problem; one is enough."""
    assert _reasons(substance.cites(set(), {1, 2})) == [Reason.CITES]
    assert substance.cites({2}, {1, 2}) == []
    assert substance.cites(set(), set()) == []


def test_form_checks_come_in_order() -> None:
    """An empty answer is empty; otherwise echoes, then ungrounded references, then language."""
    grounds = Grounds.of(window_data())
    form = substance.form
    assert _reasons(form(["** __ **"], prompt=ECHO, grounds=grounds, lang="en")) == [Reason.EMPTY]
    reasons = _reasons(
        form(["one paragraph of 3-5 sentences #987654"], prompt=ECHO, grounds=grounds, lang="zh")
    )
    assert reasons == [Reason.ECHO, Reason.UNGROUNDED, Reason.LANGUAGE]


def test_a_zh_answer_quotes_no_english_sentence_and_is_mostly_chinese() -> None:
    """zh model output is checked like the template's: no quoted English sentence, and its
    prose (names aside) mostly Chinese."""
    quoting = [
        "@mgoin 在讨论中明确反对当前的默认选择，他说“We should never pick Triton”，"
        "并建议改为按磁盘上是否存在调优配置来决定优先级。"
    ]
    (problem,) = substance.language(quoting, "zh")  # type: ignore[arg-type]
    assert problem.reason is Reason.LANGUAGE and "quotes English" in problem.text
    mixed = ["本次 the attention backend selection is moved into the oracle for kernels 调整。"]
    assert substance.language(mixed, "zh")  # type: ignore[arg-type]
    good = ["@mgoin（维护者）建议仅在存在调优配置时优先选择 Triton 后端。"]
    assert substance.language(good, "zh") == []  # type: ignore[arg-type]
