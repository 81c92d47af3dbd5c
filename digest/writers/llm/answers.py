"""The JSON answer of each narrative section, as pydantic models (their schemas are strict)."""

from __future__ import annotations

from pydantic import Field

from digest.llm.schema import Answer as _Answer
from digest.llm.schema import Login, Number


class Numbered(_Answer):
    number: Number = Field(description="the item's number, from the item data")


class SummaryAnswer(_Answer):
    summary: str = Field(description="one paragraph of 3-5 sentences")


class TopicLine(Numbered):
    line: str = Field(description="one sentence: what this item does or reports")


class TopicAnswer(_Answer):
    overview: str = Field(description="2-3 sentences on what happened in this topic")
    items: list[TopicLine]
    takeaway: str = Field(description="one closing sentence: the takeaway")


class Viewpoint(_Answer):
    login: Login = Field(description="a participant's login, from the item data")
    view: str = Field(description="what this participant argued, in one sentence")


class HotDiscussionAnswer(Numbered):
    core_issue: str = Field(description="the core issue, in one or two sentences")
    viewpoints: list[Viewpoint]
    contention: str = Field(description="the point of contention")
    status: str = Field(description="the current status")


class HotAnswer(_Answer):
    discussions: list[HotDiscussionAnswer]


class TrendAnswer(_Answer):
    term: str = Field(description="the theme, e.g. a model, feature or hardware name")
    analysis: str = Field(description="one or two sentences citing the items by #number")


class TrendsAnswer(_Answer):
    overview: str = Field(description="one or two sentences on the day's themes")
    trends: list[TrendAnswer]


class ChangeAnswer(Numbered):
    change: str = Field(description="what changed technically")
    impact: str = Field(description="the impact on users or developers")


class KeyChangesAnswer(_Answer):
    changes: list[ChangeAnswer]


class ActivityAnswer(_Answer):
    overview: str = Field(description="2-3 sentences on the day's development activity")
    highlights: list[str] = Field(description="short observations, each one sentence")


class WatchAnswer(Numbered):
    why: str = Field(description="why it deserves attention, in one or two sentences")


class WatchListAnswer(_Answer):
    items: list[WatchAnswer]
