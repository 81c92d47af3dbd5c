"""Understanding a question: topic, search terms, kind filters, language and repository."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from config.settings import load_config
from digest.ask import Kind, Question, RepoInfo, parse_question
from digest.ask.question import MAX_CHARS, clean

NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
CONFIG = load_config()
TOPICS = tuple(CONFIG.topic(name) for name in CONFIG.topics)
REPOS = (
    RepoInfo("vllm-project/vllm", "vLLM", "Asia/Shanghai", "11:21"),
    RepoInfo("sgl-project/sglang", "SGLang"),
)


def ask(text: str, **options: str) -> Question:
    return parse_question(
        text, now=NOW, topics=TOPICS, repos=REPOS, default_repo="vllm-project/vllm", **options
    )


@pytest.mark.parametrize(
    "text", ["what's new in ROCm?", "AMD news", "anything on Radeon?", "MI300X", "rocm最近怎么样"]
)
def test_topics_are_recognised_by_name_and_synonym(text: str) -> None:
    """The topic's name and its synonyms select it, whole words, any case."""
    question = ask(text)
    assert question.topic is not None and question.topic.name == "rocm"
    assert question.terms == ()


@pytest.mark.parametrize("text", ["the command line", "hipster presets", "Amdahl's law"])
def test_look_alike_words_do_not_select_a_topic(text: str) -> None:
    """ "command" does not mean AMD: a synonym must be a whole word."""
    assert ask(text).topic is None


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("what happened with Qwen3.5 this week", ("Qwen3.5",)),
        ("what's going on with qwen 3.5?", ("qwen 3.5",)),
        ("any DeepSeek-V3.2 bugs?", ("DeepSeek-V3.2",)),
        ("status of #33478", ("33478",)),
        ("tell me about gpt-oss and FlashInfer", ("gpt-oss", "FlashInfer")),
        ("量化 有什么进展", ("量化",)),
        ("有没有关于投机解码的讨论", ("投机解码",)),
        ("推理性能有什么进展", ("性能",)),
        ("is there a fix for the CUDA graph OOM?", ("CUDA", "graph", "OOM")),
    ],
)
def test_free_text_keywords(text: str, terms: tuple[str, ...]) -> None:
    """Words that are not a topic, a time, a filter or filler become search terms."""
    assert ask(text).terms == terms


def test_search_terms_are_capped_with_a_note() -> None:
    """A question of many words searches the first six, and says so."""
    question = ask(" ".join(f"word{i}" for i in range(20)))
    assert len(question.terms) == 6
    assert any("first 6 words" in note for note in question.notes)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("which ROCm PRs were merged?", {Kind.MERGED, Kind.PR}),
        ("open AMD issues", {Kind.OPEN, Kind.ISSUE}),
        ("new ROCm issues", {Kind.NEW, Kind.ISSUE}),
        ("hot discussions today", {Kind.HOT}),
        ("未合并的 PR", {Kind.OPEN, Kind.PR}),
        ("what's new in ROCm?", set()),
        ("What new issues were filed today?", {Kind.NEW, Kind.ISSUE}),
        ("how many PRs were merged this week?", {Kind.MERGED, Kind.PR}),
        ("what are people talking about today?", {Kind.HOT}),
        ("今天合并了哪些PR？", {Kind.MERGED, Kind.PR}),
        ("帮我总结一下今天的动态", set()),
        ("今天有啥新东西", set()),
        ("ROCm PRs closed without merging", {Kind.CLOSED, Kind.PR}),
        ("关闭未合并的PR", {Kind.CLOSED, Kind.PR}),
    ],
)
def test_kind_filters(text: str, kinds: set[Kind]) -> None:
    """Merged, open, new, issues, PRs and discussions are filters, not search terms."""
    question = ask(text)
    assert question.kinds == kinds
    assert question.terms == ()


@pytest.mark.parametrize(
    ("text", "lang"),
    [("ROCm 最近有什么进展？", "zh"), ("what's new in ROCm?", "en"), ("???", "en")],
)
def test_language_follows_the_question(text: str, lang: str) -> None:
    """A question with Chinese characters is answered in Chinese."""
    assert ask(text).lang == lang


def test_an_explicit_language_wins() -> None:
    """``lang`` from the command's options overrides the detected language."""
    assert ask("ROCm 最近有什么进展？", lang="en").lang == "en"
    assert ask("what's new lang:zh").lang == "zh"


@pytest.mark.parametrize(
    ("text", "repo"),
    [
        ("what's new in sglang?", "sgl-project/sglang"),
        ("anything new in SGL-Project/SGLang", "sgl-project/sglang"),
        ("repo:pytorch/pytorch what's new?", "pytorch/pytorch"),
        ("what's new in AMD/ROCm?", "vllm-project/vllm"),
        ("what's new in vLLM?", "vllm-project/vllm"),
    ],
)
def test_repository(text: str, repo: str) -> None:
    """``repo:`` or a configured repository's name picks it; "AMD/ROCm" is not a repository."""
    question = ask(text)
    assert question.repo == repo
    assert "sglang" not in [t.lower() for t in question.terms]


def test_the_repository_option_wins_and_sets_the_zone() -> None:
    """The command's repository wins; a configured one brings its time zone."""
    question = ask("what's new in sglang today?", repo="vllm-project/vllm")
    assert question.repo == "vllm-project/vllm" and question.display_name == "vLLM"
    assert question.when.window.timezone == "Asia/Shanghai"


def test_notes_follow_the_question_language() -> None:
    """A Chinese question's notes about its window and words are in Chinese."""
    question = ask("最近100天 " + " ".join(f"词{i}{i}" for i in range(9)))
    assert question.lang == "zh"
    assert question.notes == ("检索了最近 31 天，这是最长的时间窗", "只检索了问题中的前 6 个词")


def test_questions_are_cleaned() -> None:
    """Control characters go, full-width forms are folded, and length is capped."""
    assert clean("ＲＯＣｍ\x00 news\u202e?") == "ROCm news ?"
    assert len(clean("x" * 5000)) == MAX_CHARS
