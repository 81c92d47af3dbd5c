"""Tolerant parsing of a model's answer, and the answers' strict JSON schemas."""

from __future__ import annotations

from typing import Any

import pytest

from digest.llm.client import extract_json, looks_refused
from digest.llm.schema import strict_schema
from digest.writers.llm.answers import HotAnswer
from digest.writers.llm.kinds import KINDS


@pytest.mark.parametrize(
    "text",
    [
        '{"summary": "ok"}',
        '```json\n{"summary": "ok"}\n```',
        'Sure! Here it is:\n```\n{"summary": "ok"}\n```\nAnything else?',
        '<think>the user wants {json}</think>\n{"summary": "ok"}',
        'The answer is {"summary": "ok"} as requested.',
    ],
    ids=["plain", "fenced", "chatty", "reasoning", "inline"],
)
def test_the_first_json_object_is_found(text: str) -> None:
    """Plain, fenced, chatty and reasoning answers all yield their JSON object."""
    assert extract_json(text) == {"summary": "ok"}


def test_no_json_gives_none() -> None:
    """Text without a JSON object gives nothing."""
    assert extract_json('{"summary": "unterminated') is None
    assert extract_json("[1, 2]") is None


def test_refusals_are_recognised() -> None:
    """Apologies in English and Chinese read as refusals; ordinary prose does not."""
    assert looks_refused("I'm sorry, but I can't help with that.")
    assert looks_refused("抱歉，我无法完成这个请求。")
    assert not looks_refused("The scheduler change landed today.")


def _objects(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        found = [node] if node.get("type") == "object" else []
        return found + [o for value in node.values() for o in _objects(value)]
    if isinstance(node, list):
        return [o for value in node for o in _objects(value)]
    return []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_schemas_are_strict(kind: str) -> None:
    """Every object is closed and requires all its keys; no refs remain."""
    schema = KINDS[kind].schema
    assert schema == strict_schema(KINDS[kind].answer)
    assert "$ref" not in str(schema) and "$defs" not in schema
    for node in _objects(schema):
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])


def test_answers_accept_decorated_numbers_and_logins() -> None:
    """``"#123"`` and ``"@login"`` in the fields are read as 123 and ``login``."""
    answer = HotAnswer.model_validate(
        {
            "discussions": [
                {
                    "number": "#12",
                    "core_issue": "x",
                    "viewpoints": [{"login": "@carol", "view": "v"}],
                    "contention": "c",
                    "status": "s",
                }
            ]
        }
    )
    assert answer.discussions[0].number == 12
    assert answer.discussions[0].viewpoints[0].login == "carol"
