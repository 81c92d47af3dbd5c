"""The LLM writer's section inputs carry the template's facts: roles, affiliation, thread
state, numbers and glossary terms."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from digest.analysis.analyze import analyze
from digest.llm.cards import DETAILS, card
from digest.llm.grounding import Grounds
from digest.llm.prompts import system
from digest.models import Organisation
from digest.writers.llm import inputs
from tests.support.analysis_sample import (
    WINDOW,
    make_comment,
    make_item,
    rocm,
    sample_analysis,
    window_data,
)

AMD = Organisation("AMD", suffixes=("-amd",))


def _hot_day():  # type: ignore[no-untyped-def]
    issue = make_item(
        9,
        "[Bug][ROCm]: KV cache split breaks accuracy",
        body="## Summary\nThe split drops accuracy.\n\n| Task | Main | Branch |\n|---|---|---|\n"
        "| hellaswag | 0.60496 | 0.26359 |",
        labels=("bug",),
    )
    said = (
        replace(
            make_comment(
                1,
                9,
                "mgoin",
                "Could you share the full lm_eval log, please?",
                at=WINDOW.end - timedelta(hours=2),
            ),
            author_association="MEMBER",
        ),
        make_comment(2, 9, "eve-amd", "I can reproduce it on MI300X with ROCm 6.4 and TP=1."),
        make_comment(3, 9, "bob", "Rebased on main."),
    )
    return analyze(
        window_data((issue,), said), (replace(rocm(), organisation="AMD"),), organisations=(AMD,)
    )


def test_hot_input_carries_roles_acts_and_thread_state() -> None:
    """Each comment card says its author's role, affiliation and act; the thread its status."""
    analysis = _hot_day()
    found = inputs.hot(analysis, "hot", "zh")  # type: ignore[arg-type]
    assert found is not None
    got = card(found.sources[0], DETAILS[0], Grounds.of(analysis.data, analysis.items))
    people = {c["author"]: c for c in got["comments"]}
    assert people["mgoin"]["role"] == "maintainer" and people["mgoin"]["act"] == "ask_info"
    assert people["eve-amd"]["affiliation"] == "AMD" and people["eve-amd"]["act"] == "reproduce"
    assert "bob" not in people  # boilerplate is never given
    assert got["thread_status"] == "waiting_reporter" and got["open_question_from"] == "mgoin"
    assert got["routine_comments_not_counted"] == 1


def test_item_facts_give_kind_areas_numbers_and_the_authors_role() -> None:
    """Kind, glossary areas with their Chinese names, numbers and the author's role."""
    facts = inputs.item_facts(
        _hot_day(),
        make_item(
            9,
            "[Bug][ROCm]: KV cache split breaks accuracy",
            body="| Task | Main | Branch |\n|---|---|---|\n| hellaswag | 0.60496 | 0.26359 |",
        ),
    )
    assert facts["change_kind"] == "bug" and facts["author_role"] == "reporter"
    assert {"en": "KV cache", "zh": "KV 缓存"} in facts["areas"]
    assert facts["numbers"] == ["hellaswag 0.60 → 0.26"]


def test_the_topic_input_says_how_much_came_from_its_organisation() -> None:
    """The focus topic's facts name its organisation and the items from it."""
    found = inputs.topic(_hot_day(), "topic:rocm", "en")  # type: ignore[arg-type]
    assert found is not None
    assert found.facts["organisation"] == "AMD" and found.facts["items_from_organisation"] == 0


def test_sections_with_items_are_told_what_the_facts_are_for() -> None:
    """The system prompt of a section with item cards asks for 内容 and 影响 from the facts."""
    with_items = system("o/r", "zh", items=True)  # type: ignore[arg-type]
    assert (
        "impact from its card's facts" in with_items and "quote no English sentence" in with_items
    )
    assert "card's facts" not in system("o/r", "zh")  # type: ignore[arg-type]
    assert inputs.summary(sample_analysis(), "summary", "zh") is not None  # type: ignore[arg-type]
