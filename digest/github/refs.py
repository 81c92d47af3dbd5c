"""Fix references in a PR's title and description: ``Fixes #12``, ``Closes owner/repo#3``,
``Resolves https://github.com/owner/repo/issues/4``, as GitHub links them to the issues they close.

Only references to the same repository count; code blocks, inline code and HTML comments are
not read (a pasted log that says "fixes #1" fixes nothing).
"""

from __future__ import annotations

import re

_KEYWORD = r"(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)"
_REF = r"(?:(?:https?://[^\s/]+/)?([\w.-]+/[\w.-]+)(?:/(?:issues|pull)/|#)|#)(\d+)"
_CLAUSE = re.compile(
    rf"(?<![\w-]){_KEYWORD}:?\s+({_REF}(?:(?:\s*,\s*|\s+and\s+|\s+)(?:{_KEYWORD}:?\s+)?{_REF})*)",
    re.I,
)
_ONE = re.compile(_REF, re.I)
_NOISE = re.compile(r"<!--.*?-->|```.*?(?:```|$)|`[^`\n]*`", re.S)


def fix_references(text: str, repo: str, own: int | None = None) -> tuple[int, ...]:
    """The issue numbers of ``repo`` that ``text`` says it fixes, closes or resolves, in order,
    once each, never ``own`` (the item itself)."""
    found: dict[int, None] = {}
    for clause in _CLAUSE.finditer(_NOISE.sub(" ", text or "")):
        for ref in _ONE.finditer(clause[1]):
            where, number = ref[1], int(ref[2])
            if where is not None and where.lower() != repo.lower():
                continue
            if number != own:
                found.setdefault(number, None)
    return tuple(found)
