"""The strict subset of JSON schema that structured output accepts, and answer basics.

Shared by every caller of the model: the section writer and the question answerer.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict


class Answer(BaseModel):
    """A model's JSON answer: unknown keys ignored, strings stripped."""

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
