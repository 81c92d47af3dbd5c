"""The JSON answer of each narrative section, as pydantic models and strict JSON schemas."""

from __future__ import annotations

import copy
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


def _number(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lstrip("#").strip()
    return value


def _login(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lstrip("@").strip()
    return value


Number = Annotated[int, BeforeValidator(_number)]
Login = Annotated[str, BeforeValidator(_login)]


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


ANSWERS: dict[str, type[_Answer]] = {
    "summary": SummaryAnswer,
    "topic": TopicAnswer,
    "hot": HotAnswer,
    "trends": TrendsAnswer,
    "key_changes": KeyChangesAnswer,
    "activity": ActivityAnswer,
    "watch": WatchListAnswer,
}


def kind_of(section_id: str) -> str:
    """The kind of answer a section expects: ``topic:rocm`` -> ``topic``."""
    return section_id.split(":", 1)[0]


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        out = {
            key: _inline(value, defs)
            for key, value in node.items()
            if key not in ("title", "default", "$defs", "properties")
        }
        if "properties" in node:
            out["properties"] = {
                name: _inline(value, defs) for name, value in node["properties"].items()
            }
        if out.get("type") == "object":
            out["additionalProperties"] = False
            out["required"] = list(out.get("properties", {}))
        return out
    if isinstance(node, list):
        return [_inline(value, defs) for value in node]
    return node


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the strict subset: no refs, closed objects, all keys required."""
    raw = model.model_json_schema()
    defs = copy.deepcopy(raw.get("$defs", {}))
    result: dict[str, Any] = _inline(raw, defs)
    return result


def skeleton(schema: dict[str, Any], hint: str = "text") -> Any:
    """An example of the answer's shape, with the fields' descriptions as placeholders."""
    kind = schema.get("type")
    if kind == "object":
        return {key: skeleton(value) for key, value in schema.get("properties", {}).items()}
    if kind == "array":
        return [skeleton(schema.get("items", {}), schema.get("description", hint))]
    if kind == "integer":
        return 0
    return schema.get("description", hint)
