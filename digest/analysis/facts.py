"""Facts a description or comment states: measured numbers (before → after, %, ms, tokens/s,
TTFT/TPOT, accuracy) and the identifiers it names (code spans, flags, environment variables,
files), so that a writer can say them in any language without quoting sentences."""

from __future__ import annotations

import re

_UNIT = r"(?:ms|µs|us|s|%|x|×|GB|GiB|MB|tokens?/s|tok/s|req/s|TFLOPS)"
_NUM = r"[-+]?\d+(?:[.,]\d+)?"
_CHANGE = re.compile(
    rf"(?:from\s+)?({_NUM}\s*{_UNIT}?)\s*(?:→|->|=>|to)\s*({_NUM}\s*{_UNIT})"
    rf"|(?:from\s+)({_NUM})\s+to\s+({_NUM})",
    re.I,
)
_METRIC = re.compile(
    rf"\b(TTFT|TPOT|ITL|E2EL|throughput|latency|speedup|accuracy|acceptance rate)\b[^.\n|]{{0,30}}?"
    rf"({_NUM}\s*{_UNIT}?)",
    re.I,
)
_AMOUNT = re.compile(
    rf"(?<![\w.])(~?{_NUM}(?:\s*[–-]\s*{_NUM})?\s*(?:%|x\b|×|ms\b|tokens?/s|tok/s))"
)
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_BEFORE = re.compile(r"^(main|before|baseline|base|old|original|trunk)$", re.I)
_AFTER = re.compile(r"^(branch|after|new|pr|this pr|optimi[sz]ed|patched|ours)$", re.I)
_NUMBER_CELL = re.compile(rf"^{_NUM}\s*{_UNIT}?$")

_CODE = re.compile(r"`([^`\n]{2,60})`")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]{2,40})(?:[ =]([\w.-]{1,20}))?")
_ENV = re.compile(r"\b(VLLM_[A-Z0-9_]{3,50})\b")
_FILE = re.compile(r"\b((?:[\w-]+/)+[\w-]+\.(?:py|cu|cuh|cpp|h|yaml|toml))\b")

FACTS_LIMIT = 3


def _cells(line: str) -> list[str] | None:
    match = _ROW.match(line)
    return [cell.strip() for cell in match[1].split("|")] if match else None


_LONG = re.compile(r"(?<![\w.])\d+\.\d{3,}")


def _rounded(text: str) -> str:
    """Numbers with more than two decimals rounded to two (0.69781 → 0.70)."""
    return _LONG.sub(lambda m: f"{float(m[0]):.2f}", text)


def table_changes(text: str) -> list[str]:
    """``hellaswag 0.60496 → 0.26359`` from a Markdown table with before and after columns."""
    out: list[str] = []
    before = after = None
    for line in text.splitlines():
        cells = _cells(line)
        if cells is None:
            before = after = None
            continue
        if before is None:
            heads = [c.strip("* ") for c in cells]
            b = next((i for i, c in enumerate(heads) if _BEFORE.match(c)), None)
            a = next((i for i, c in enumerate(heads) if _AFTER.match(c)), None)
            if b is not None and a is not None:
                before, after = b, a
            continue
        if max(before, after or 0) >= len(cells):
            continue
        old, new = cells[before], cells[after or 0]
        if _NUMBER_CELL.match(old) and _NUMBER_CELL.match(new):
            out.append(_rounded(f"{cells[0]} {old} → {new}".strip()))
    return out


def measured(text: str, limit: int = FACTS_LIMIT) -> tuple[str, ...]:
    """The numbers ``text`` reports, most telling first: before → after pairs (tables and
    prose), named metrics (TTFT 120 ms), then amounts with a unit (10–20%, 1.5x, 3.2 ms)."""
    found: list[str] = list(table_changes(text))
    for match in _CHANGE.finditer(text):
        old, new = (match[1], match[2]) if match[1] else (match[3], match[4])
        found.append(_rounded(f"{old.strip()} → {new.strip()}"))
    for match in _METRIC.finditer(text):
        found.append(f"{match[1]} {match[2].strip()}")
    for match in _AMOUNT.finditer(text):
        found.append(match[1].strip())
    unique: list[str] = []
    for fact in found:
        if not any(fact in kept or kept in fact for kept in unique):
            unique.append(fact)
    return tuple(unique[:limit])


def identifiers(text: str, limit: int = FACTS_LIMIT) -> tuple[str, ...]:
    """The identifiers ``text`` names: code spans, ``--flags``, ``VLLM_*`` variables, files."""
    found: list[str] = []
    for match in _CODE.finditer(text):
        found.append(match[1].strip())
    found.extend(m[1] for m in _FLAG.finditer(text))
    found.extend(m[1] for m in _ENV.finditer(text))
    found.extend(m[1] for m in _FILE.finditer(text))
    unique = list(dict.fromkeys(f for f in found if f and " " not in f.strip()))
    return tuple(unique[:limit])
