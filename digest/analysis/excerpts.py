"""Excerpts that make sense: what a description says it changes, in whole sentences.

The excerpt comes from the description's purpose or change part ("What this PR does",
"Changes", "Solution", "Fix", "Purpose", "Summary", "Motivation"), else its first prose; it
never runs into a code block (a sentence that introduces one, ending in ``:`` or mid-sentence, is
dropped; the prose after the block goes on) and ends at a full sentence or with an ellipsis.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from digest.analysis.text import clean_excerpt, is_prose_line, sentences, word_count

# Headings of a description, most telling first, for a PR and for an issue.
PR_PARTS = (
    "what this pr does",
    "changes",
    "change",
    "solution",
    "fix",
    "purpose",
    "summary",
    "description",
    "motivation",
    "overview",
)
ISSUE_PARTS = (
    "describe the bug",
    "the feature, motivation and pitch",
    "motivation",
    "summary",
    "proposal",
    "description",
)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\*\*)(.+?)(?:\*\*)?\s*:?\s*$")
_MARK = re.compile(r"[^\w\s,]")
_SKIPPED = re.compile(
    r"environment|expected|actual|test plan|test result|files changed|checklist|before submitting"
    r"|reproduc|output|logs?\b|version|what i tested|env vars|accuracy|benchmark|results?\b",
    re.I,
)
_COURTESY = re.compile(r"^\W*(?:hi|hello|hey|thanks|thank you|dear)\b", re.I)
_CODE = "[code]"
_ENDS = ("。", ".", "!", "?", "！", "？", "…", ")", "）")


def _heading(line: str) -> str | None:
    match = _HEADING.match(line)
    if not match or len(match[1]) > 60:
        return None
    return " ".join(_MARK.sub(" ", match[1]).split()).lower()


def parts(body: str) -> list[tuple[str, list[str]]]:
    """The description as (heading, lines) parts, in order; the text before the first heading
    has the heading ""."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for line in body.splitlines():
        name = _heading(line)
        if name is not None:
            out.append((name, []))
        else:
            out[-1][1].append(line)
    return out


def _part_rank(name: str, wanted: tuple[str, ...]) -> int:
    for rank, part in enumerate(wanted):
        if name == part or name.startswith(part + " ") or name.endswith(" " + part):
            return rank
    return len(wanted) + (0 if not name else 1)  # the untitled start before other parts


def _before_code(text: str) -> str:
    """The whole sentences of ``text``, a line that runs into a code block: the sentence the
    block ends is dropped."""
    if not is_prose_line(text):
        return ""
    found = sentences(text)
    kept = [s for s in found if s.endswith(_ENDS)]
    if kept and not text.endswith(_ENDS) and kept[-1] == found[-1]:
        kept = kept[:-1]
    return " ".join(kept)


def _prose(lines: list[str]) -> Iterator[str]:
    """The prose of ``lines`` one line at a time, code blocks left out: a line that runs into
    a block (ending in ``:`` or mid-sentence, as "fails to start with") is dropped with it,
    and the prose of the lines after the block goes on."""
    pending = ""
    for line in lines:
        if _CODE in line:
            before = line.split(_CODE, 1)[0].strip()
            if pending and pending.endswith(_ENDS):
                yield pending
            kept = _before_code(before) if before else ""
            if kept:
                yield kept
            pending = ""  # the rest of the line finishes the sentence the block broke
            continue
        if not line.strip():
            continue
        if pending:
            yield pending
        pending = ""
        if is_prose_line(line) and not line.rstrip().endswith((":", "：")):
            pending = line.strip()  # a line ending in ":" introduces what follows
    if pending:
        yield pending


def excerpt_sentences(
    body: str,
    is_pr: bool,
    known_numbers: frozenset[int] = frozenset(),
    known_logins: frozenset[str] = frozenset(),
) -> list[str]:
    """The whole sentences of the description's most telling part, in order."""
    return _excerpt(body, is_pr, known_numbers, known_logins)[0]


def excerpt_part(body: str, is_pr: bool) -> str:
    """The raw text of the part the excerpt comes from (code spans intact); ""."""
    return _excerpt(body, is_pr, frozenset(), frozenset())[1]


def _excerpt(
    body: str, is_pr: bool, known_numbers: frozenset[int], known_logins: frozenset[str]
) -> tuple[list[str], str]:
    wanted = PR_PARTS if is_pr else ISSUE_PARTS
    ranked = sorted(enumerate(parts(body)), key=lambda p: (_part_rank(p[1][0], wanted), p[0]))
    for _, (name, lines) in ranked:
        if name and _SKIPPED.search(name) and _part_rank(name, wanted) >= len(wanted):
            continue
        found: list[str] = []
        for line in _prose(lines):
            for sentence in sentences(clean_excerpt(line, known_numbers, known_logins)):
                if word_count(sentence) >= 4 or len(sentence) >= 12:
                    found.append(sentence)
        found = [s for s in found if not s.rstrip().endswith(":")]  # it introduced a block
        found = [
            s
            for s in found
            if "not visible in the source" not in s.lower() and not _COURTESY.match(s)
        ]
        if found:
            return found, "\n".join(lines)
    return [], ""


def whole(sentences_: list[str], limit: int) -> str:
    """As many whole sentences as fit in ``limit`` characters; a first sentence longer than
    that is cut at a word and ends with an ellipsis. Every result ends a sentence or with "…"."""
    out = ""
    for sentence in sentences_:
        joined = f"{out} {sentence}".strip()
        if len(joined) > limit:
            break
        out = joined
    if not out and sentences_:
        first = sentences_[0]
        cut = first[: limit - 1].rsplit(" ", 1)[0] if " " in first[: limit - 1] else first
        out = cut[: limit - 1].rstrip(" ,;:-") + "…"
    if out and not out.endswith(_ENDS):
        out = out.rstrip(" ,;:-") + "."  # a whole line written without its full stop
    return out
