"""Threads read as a maintainer reads them: boilerplate set aside, comments weighed by
substance and named by what they do, questions answered or open, and where the thread stands.

Boilerplate ("LGTM", "Rebased on main.", "CI failure looks unrelated.", "+1", "any update?",
bot-like commands) is never heat and never quoted. A question counts as answered once someone
else replies after it. The status comes from the last substantive comments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from digest.analysis.text import text_lines
from digest.models import Comment, Item, ItemState

_FILLER = (
    r"lgtm|looks good( to me)?|sgtm|ship ?it|approved?|\+1|-1|👍|thanks?( you)?( so much)?|thx|ty"
    r"|re-?based( on (top of )?(the )?(latest )?main)?|re-?based and re-?pushed"
    r"|(the )?ci (failures?|errors?|issues?|tests?)? ?(looks?|seems?|is|are)( to be)? unrelated"
    r"|(the )?(failing|failed) (tests?|ci|checks?) (looks?|seems?|is|are)( to be)? unrelated"
    r"|unrelated (ci )?failures?|retrying (the )?ci|re-?running (the )?ci|re-?run (the )?ci"
    r"|any (updates?|progress|news)( on this)?|same (issue|problem|here)|me too|bump|ping"
    r"|gentle ping|friendly ping|cc|done|fixed|addressed|updated|nice|great( work)?"
    r"|merged|closing|will do|on it|sure|ok(ay)?|good catch"
)
_BOILERPLATE = re.compile(
    rf"^(?:\s*@[\w-]+[,:]?)*\W*(?:(?:{_FILLER})\b[\W_]*)+(?:@[\w-]+\W*)*$", re.I
)
_COMMAND = re.compile(
    r"^\s*/[a-z][\w-]*(\s|$)|^\s*@(mergify|gemini-code-assist|dependabot)\b", re.I
)
_LINK = re.compile(r"\(?<?https?://[^\s)>]+>?\)?")
_BOT_LINE = re.compile(
    r"this pull request has merge conflicts|this issue has been automatically marked as stale"
    r"|👋 hi! thank you for contributing|documentation preview|^\s*<!--",
    re.I,
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?\s*(?:%|ms|s\b|x\b|gb|mb|tokens?/s|tok/s)|\b\d+\.\d+\b", re.I)
_CODE = re.compile(r"`[^`]+`|\[code\]|\b[\w/]+\.(?:py|cu|cpp|h|yaml|md)\b|#L\d+|\b\w+\(\)")
_REPRO = re.compile(
    r"\brepro(?:duce[sd]?|duction|duced)?\b|\bsteps\b|\bcan confirm\b|\bconfirmed\b|复现", re.I
)
_WORDS = re.compile(r"[A-Za-z0-9_']+|[\u3400-\u9fff]")

# What a comment does in its thread, in the order the checks run (first match wins).
ACTS = ("duplicate", "root_cause", "ask_info", "verify", "reproduce", "solution", "approve", "info")
_ACT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("duplicate", re.compile(r"\bduplicate of\b|\bdup(licate)?\b.*#\d+|\bsame as #\d+|重复", re.I)),
    (
        "root_cause",
        re.compile(
            r"\broot cause\b|\bthe cause\b|\bcaused by\b|\bnarrowed\b|\bbisect|\bculprit\b"
            r"|\bregression from\b|\bthe (issue|problem|bug) is (that|in|with)\b|\bbecause\b"
            r"|\bcomes from\b|根因|原因",
            re.I,
        ),
    ),
    (
        "ask_info",
        re.compile(
            r"\b(can|could|would) you (share|provide|post|try|run|check|attach|paste)\b"
            r"|\bplease (share|provide|post|attach|paste|run|try)\b|\bwhat (version|gpu|model)"
            r"|\bdo you (have|see|use)\b|\bcan we\b|\bcould we\b|请提供",
            re.I,
        ),
    ),
    (
        "verify",
        re.compile(
            r"\bworks for me\b|\bverified\b|\btested\b|\bconfirm(ed)? (that )?(it|the fix)"
            r"|\bno longer\b|\bresults?\b.*\b(now|after)\b|验证|测试通过",
            re.I,
        ),
    ),
    ("reproduce", _REPRO),
    (
        "solution",
        re.compile(
            r"\bworkaround\b|\bone option\b|\bwe could\b|\bi'?ll (do|add|update|fix|send|open)"
            r"|\bsuggest|\bpropos|\btry (setting|using|with)\b|\binstead\b|\bshould (use|be)\b"
            r"|\bfix(ed)? (in|by) #\d+|\bopened #\d+|\bupdated the\b|\bi updated\b|方案|建议",
            re.I,
        ),
    ),
    ("approve", re.compile(r"\bapprov|\blgtm\b|\bmakes sense\b|\bagree\b|\bsounds good\b", re.I)),
)

# Status of a thread from its last substantive comments.
STATUSES = ("fixed", "workaround", "cause", "waiting_reporter", "stuck", "discussing")
_FIXED = re.compile(
    r"\b(fixed|resolved|addressed) (in|by|with) (#\d+|https?://\S+/pull/\d+)|\bthis is (now )?fixed"
    r"|\bthe fix (is|was) merged|\bmerged the fix",
    re.I,
)
_WORKAROUND = re.compile(
    r"\bworkaround\b|\bworks (when|if|with)\b|\bsetting \S+ (fixes|avoids|helps)|\bdisabling\b"
    r"|\bswitching to\b|\bas a temporary\b",
    re.I,
)
_CAUSE = _ACT_PATTERNS[1][1]


def comment_text(comment: Comment) -> str:
    """The comment's own words: links and quoted lines (``>``) dropped, whitespace collapsed."""
    body = _LINK.sub(" ", comment.body_excerpt)
    lines = [line for line in text_lines(body) if not line.startswith(">")]
    return " ".join(" ".join(lines).split())


def is_boilerplate(comment: Comment) -> bool:
    """Whether ``comment`` says nothing a reader needs: approval, rebase and CI chatter, "+1",
    "any update?", bot-like commands and notices, or fewer than four words without a number
    or a code reference."""
    if comment.author_is_bot:
        return True
    text = comment_text(comment)
    if not text or _BOILERPLATE.match(text) or _COMMAND.match(text) or _BOT_LINE.search(text):
        return True
    words = _WORDS.findall(text)
    return len(words) < 4 and not (_NUMBER.search(text) or _CODE.search(text))


def comment_substance(comment: Comment) -> float:
    """How much a comment says: its length (capped), numbers, code references and
    reproduction steps; 0 for boilerplate."""
    if is_boilerplate(comment):
        return 0.0
    text = comment_text(comment)
    score = min(3.0, len(_WORDS.findall(text)) / 15)
    score += min(2.0, 0.5 * len(_NUMBER.findall(text)))
    score += min(2.0, 0.5 * len(_CODE.findall(text)))
    score += 1.0 if _REPRO.search(text) else 0.0
    return score


def substantive(comments: Sequence[Comment]) -> tuple[Comment, ...]:
    """The comments of ``comments`` that are not boilerplate, in their order."""
    return tuple(c for c in comments if not is_boilerplate(c))


def act_of(comment: Comment) -> str:
    """What ``comment`` does in its thread: one of ``ACTS`` ("info" when nothing else fits)."""
    text = comment_text(comment)
    return next((act for act, pattern in _ACT_PATTERNS if pattern.search(text)), "info")


def _asks(comment: Comment) -> bool:
    text = comment_text(comment)
    return "?" in text or "？" in text or act_of(comment) == "ask_info"


def open_question(thread: Sequence[Comment]) -> Comment | None:
    """The last comment that asks something and that nobody else answered after; ``None``."""
    talk = substantive(thread)
    for index in range(len(talk) - 1, -1, -1):
        comment = talk[index]
        if not _asks(comment):
            continue
        answered = any(later.author != comment.author for later in talk[index + 1 :])
        return None if answered else comment
    return None


@dataclass(frozen=True, slots=True)
class ThreadState:
    """Where a thread stands: its status (one of ``STATUSES``), the comment that says so
    (the finding), and the question still open, if any."""

    status: str
    finding: Comment | None = None
    question: Comment | None = None


def thread_state(item: Item, thread: Sequence[Comment], tail: int = 3) -> ThreadState:
    """The state of ``item``'s ``thread`` from its last ``tail`` substantive comments.

    Fixed when one says so; a workaround or a narrowed cause when one reports it; waiting for
    the reporter when someone else's question is open; stuck when only the author speaks.
    """
    talk = substantive(thread)
    question = open_question(thread)
    last = talk[-tail:]
    for status, pattern in (("fixed", _FIXED), ("workaround", _WORKAROUND), ("cause", _CAUSE)):
        found = next((c for c in reversed(last) if pattern.search(comment_text(c))), None)
        if found is not None:
            return ThreadState(status, found, question)
    if item.is_merged:
        return ThreadState("fixed", None, question)
    if question is not None and question.author != item.author:
        return ThreadState("waiting_reporter", question, question)
    if talk and all(c.author == item.author for c in talk) and item.state is ItemState.OPEN:
        return ThreadState("stuck", None, question)
    return ThreadState("discussing", talk[-1] if talk else None, question)
