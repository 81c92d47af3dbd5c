"""One record per kind of narrative section: everything the LLM writer knows about it.

A kind names its answer (the pydantic model, hence the strict JSON schema), the task the model
is given, its share of the token budget, the function that picks its input from the analysis,
the function that turns a checked answer into blocks, and the checks of substance that only
this kind needs (the summary states the counts, item sections cite their items, hot
discussions name their participants). Adding a section is adding a record here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from digest.analysis.types import Analysis
from digest.llm import substance
from digest.llm.grounding import Grounds, given_key
from digest.llm.reasons import Reason
from digest.llm.schema import strict_schema
from digest.llm.substance import Problem
from digest.models import Block, ItemKey, Lang
from digest.writers.llm import inputs
from digest.writers.llm.answers import (
    ActivityAnswer,
    HotAnswer,
    KeyChangesAnswer,
    Numbered,
    SummaryAnswer,
    TopicAnswer,
    TrendsAnswer,
    WatchListAnswer,
)
from digest.writers.llm.blocks import Builder, nodes, texts
from digest.writers.llm.inputs import SectionInput

A = TypeVar("A", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Given:
    """What one request gave the model: the section's input, the items sent, the grounds."""

    found: SectionInput
    numbers: frozenset[ItemKey]  # the items of the cards sent
    grounds: Grounds


@dataclass(frozen=True, slots=True)
class Length:
    """Bounds of an answer's length, in English characters (a Chinese character counts two)."""

    least: int
    most: int
    field_most: int = 1500


def cited(answer: BaseModel, given: Given) -> set[ItemKey]:
    """The items of the cards sent that the answer cites, in a numbered field or as ``#N``."""
    keys = {
        key
        for node in nodes(answer)
        if isinstance(node, Numbered) and (key := given_key(given.numbers, node.number))
    }
    keys |= given.grounds.cites(texts(answer))
    return keys & given.numbers


def _cites(answer: BaseModel, given: Given) -> list[Problem]:
    return substance.cites(cited(answer, given), given.numbers)


def _summary(answer: SummaryAnswer, given: Given) -> list[Problem]:
    return substance.counts(answer.summary, given.found.counts) + _cites(answer, given)


def _hot(answer: HotAnswer, given: Given) -> list[Problem]:
    """Each discussion with two or more people in the data names at least two of them."""
    problems = _cites(answer, given)
    people = {source.item.key: _people(source, given.grounds) for source in given.found.sources}
    for discussion in answer.discussions:
        key = given_key(given.numbers, discussion.number)
        available = people.get(key, set()) if key else set()
        named = {v.login.lower() for v in discussion.viewpoints} & available
        named |= {login.lower() for login in given.grounds.named(texts(discussion))} & available
        if len(available) >= 2 and len(named) < 2:
            listed = ", ".join(f"@{login}" for login in sorted(available)[:6])
            problems.append(
                Problem(
                    Reason.PARTICIPANTS,
                    f"the discussion of #{discussion.number} must give the viewpoints of at "
                    f"least two of its participants ({listed})",
                )
            )
    return problems


def _people(source: Any, grounds: Grounds) -> set[str]:
    logins = [source.item.author, *source.extra.get("participants", ())]
    logins += [c.author for c in source.comments if not c.author_is_bot]
    return {login.lower() for login in logins if grounds.login(login)}


def _none(answer: BaseModel, given: Given) -> list[Problem]:
    return []


def _groups(found: SectionInput) -> dict[int, str]:
    return {s.item.number: str(s.extra.get("group", "")) for s in found.sources}


@dataclass(frozen=True, slots=True)
class SectionKind(Generic[A]):
    """A kind of narrative section (``topic`` for ``topic:rocm``)."""

    name: str
    answer: type[A]
    task: str
    weight: float  # its share of the digest's token budget
    inputs: Callable[[Analysis, str, Lang], SectionInput | None]  # (analysis, section id, lang)
    blocks: Callable[[Builder, A, SectionInput], list[Block]]
    length: Length
    checks: Callable[[A, Given], Sequence[Problem]] = _none
    schema: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema", strict_schema(self.answer))


_KINDS: tuple[SectionKind[Any], ...] = (
    SectionKind(
        "summary",
        SummaryAnswer,
        "Write the report's daily summary: one paragraph of 3-5 sentences on the day's volume "
        "(state the five counts in <facts> exactly as given) and what development focused on, "
        "citing the most important items by #number.",
        weight=1.0,
        inputs=inputs.summary,
        blocks=lambda b, a, found: b.summary(a),
        length=Length(least=80, most=2400, field_most=2400),
        checks=_summary,
    ),
    SectionKind(
        "topic",
        TopicAnswer,
        "Write the focus-topic section for the topic in <facts>: a 2-3 sentence overview, then "
        "one sentence for each item in <item_data> (best first) saying what it does or reports, "
        "and a closing one-sentence takeaway.",
        weight=1.6,
        inputs=inputs.topic,
        blocks=lambda b, a, found: b.topic(a, _groups(found)),
        length=Length(least=60, most=8000),
        checks=_cites,
    ),
    SectionKind(
        "hot",
        HotAnswer,
        "Analyse each of the most debated items in <item_data>: the core issue, each "
        "participant's viewpoint (who said what, as @login with what they argued, from their "
        "comments), the point of contention, and the current status (from the item's state and "
        "the latest comments). Keep the order of the data.",
        weight=1.6,
        inputs=inputs.hot,
        blocks=lambda b, a, found: b.hot(a),
        length=Length(least=80, most=10000),
        checks=_hot,
    ),
    SectionKind(
        "trends",
        TrendsAnswer,
        "Describe the recurring themes listed in <facts> (models, features, hardware): a short "
        "overview, then for each theme one or two sentences on what the items show, citing them "
        "by #number.",
        weight=0.9,
        inputs=inputs.trends,
        blocks=lambda b, a, found: b.trends(a),
        length=Length(least=60, most=6000),
        checks=_cites,
    ),
    SectionKind(
        "key_changes",
        KeyChangesAnswer,
        "For each merged pull request in <item_data>, explain what changed technically and its "
        "impact on users or developers. Keep the order of the data.",
        weight=1.3,
        inputs=inputs.key_changes,
        blocks=lambda b, a, found: b.key_changes(a),
        length=Length(least=60, most=6000),
        checks=_cites,
    ),
    SectionKind(
        "activity",
        ActivityAnswer,
        "Describe the day's development activity from <facts>: contributors, merge rate, review "
        "load (new PRs still open), notable and first-time contributors (as @login). Use the "
        "numbers exactly as given.",
        weight=0.5,
        inputs=inputs.activity,
        blocks=lambda b, a, found: b.activity(a),
        length=Length(least=60, most=3000),
    ),
    SectionKind(
        "watch",
        WatchListAnswer,
        "For each open item in <item_data>, say in one or two sentences why it deserves "
        "attention (its `reason` code says why it was picked: regression, heated, blocker, "
        "many_reports, unanswered...). Keep the order of the data.",
        weight=1.0,
        inputs=inputs.watch,
        blocks=lambda b, a, found: b.watch(a),
        length=Length(least=40, most=5000),
        checks=_cites,
    ),
)

KINDS: dict[str, SectionKind[Any]] = {kind.name: kind for kind in _KINDS}


def kind_of(section_id: str) -> SectionKind[Any] | None:
    """The kind of a section (``topic:rocm`` -> the ``topic`` kind), if it is model-written."""
    return KINDS.get(section_id.split(":", 1)[0])
