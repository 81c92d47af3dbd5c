"""Reading GitHub text: whole words, title tags, prose lines versus logs, first sentences."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Generic, TypeVar

import ahocorasick

from digest.github.names import LOGIN

_V = TypeVar("_V")

# How many texts a per-text memo of the analysis keeps: a 31-day vLLM window's items, twice.
# The memos are keyed by the texts themselves, so a rebuild of an overlapping window (the
# same window a minute later, the next day's) analyses only what is new or was edited.
PER_TEXT = 1 << 14

_TAG = re.compile(r"\[([^\[\]]{1,40})\]")
_TAG_SPLIT = re.compile(r"[/,&+|]|\s+")
_CONVENTIONAL = re.compile(
    r"^\s*(?P<type>feat|fix|perf|refactor|docs|doc|ci|build|test|tests|chore|style|revert)"
    r"(?:\((?P<scope>[^()]{1,40})\))?!?:\s",
    re.I,
)
_CONVENTIONAL_TYPES = {"feat": "feature", "fix": "bugfix", "docs": "doc", "tests": "test"}
_HEADING = re.compile(r"^\s*#{1,6}\s")
_LOG_LINE = re.compile(
    r"""^\s*(?:
        \[code\]
      | Traceback\b | File\s" | at\s+[\w.$]+\( | \(\w+\s+pid=\d+\)
      | \d{4}-\d{2}-\d{2}[\sT]\d | \d{2}-\d{2}\s\d{2}:\d{2}
      | (?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b
      | [\w.]+(?:Error|Exception|Warning)\b
      | \$\s | >>>\s | \| | [-=*_]{3,} | !\[
    )""",
    re.X,
)
_INDENTED = re.compile(r"^(?: {4,}|\t)")
_KEY_VALUE = re.compile(r"^\s*(?:[-*+]\s+)?[A-Za-z][\w .()/+-]{0,40}:\s*\S")
_EMPTY_VALUE = re.compile(
    r":\s*(?:n/?a|none|null|false|no|true|yes|could not collect|not available|\d[\d.]*)\s*$",
    re.I,
)
_BOILERPLATE = re.compile(
    r"(?:your current environment|the output of|before submitting|make sure you already searched"
    r"|essential elements of|^\s*[-*]\s*\[[ xX]\])",
    re.I,
)
_COURTESY = re.compile(
    r"(?:not visible in the source|^\W*(?:hi|hello|hey|thanks|thank you)\b|^\W*cc\b)", re.I
)
_SKIPPED_SECTION = re.compile(
    r"environment|expected|test plan|test result|files changed|checklist|before submitting"
    r"|reproduc|output|logs?\b|version",
    re.I,
)
_DANGLING_REF = re.compile(
    r"(?:\b(?:follow[- ]up (?:to|on|of)|related to|fixes|closes|resolves|see|part of|"
    r"split from|supersedes|replaces)\s*:?\s*)?(?<![\w&#/])(?:[\w.-]+/[\w.-]+)?#(\d+)\b[:,]?",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_SENTENCE_END = re.compile(
    r"(?<!e\.g\.)(?<!i\.e\.)(?<!etc\.)(?<!vs\.)(?:(?<=[.!?])|(?<=[.!?][)\"'”’]))\s+|(?<=[。！？])"
)
_URL = re.compile(r"\(?<?https?://[^\s)>]+>?\)?")
_MD_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
_MENTION = re.compile(rf"(?<![\w@])@({LOGIN})\b")
_SPACES = re.compile(r"\s+")
_SEPARATORS = re.compile(r"[\s_-]+")
_LEADING_MENTIONS = re.compile(r"^(?:\s*@[A-Za-z0-9-]+[,:]?)+\s*")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


class Needles(Generic[_V]):
    """Literal substrings looked for in one pass over a text (an Aho-Corasick automaton), each
    with a value: what ``needle in text`` would find for every needle, overlaps included."""

    __slots__ = ("_automaton",)

    def __init__(self, needles: Mapping[str, _V]) -> None:
        automaton = ahocorasick.Automaton()
        for needle, value in needles.items():
            if needle:
                automaton.add_word(needle, value)
        automaton.make_automaton()
        self._automaton = automaton if len(automaton) else None

    def values(self, text: str) -> Iterator[_V]:
        """The value of each needle occurrence in ``text``, in order of where it ends."""
        if self._automaton is not None:
            for _end, value in self._automaton.iter(text):
                yield value

    def any_in(self, text: str) -> bool:
        """Whether any needle occurs in ``text``."""
        return next(self.values(text), None) is not None


def folded(text: str) -> str:
    """``text`` lower-cased, one character for each, so that a pattern of lower-case ASCII
    letters matches it without ``re.I`` wherever it matches ``text`` with ``re.I``: besides
    ``str.lower``, the letters that ``re.I`` matches with an ASCII letter ``lower`` does not
    give (İ, ı, ſ)."""
    if text.isascii():
        return text.lower()
    return text.replace("İ", "i").replace("ı", "i").replace("ſ", "s").lower()


def word_count(text: str) -> int:
    """Roughly how many words ``text`` holds: Latin words, and a word per two Han characters."""
    return len(_WORD.findall(text)) + len(_HAN.findall(text)) // 2


def words(spec: str) -> tuple[str, ...]:
    """A word list written as ``"a|b|multi word"``."""
    return tuple(word.strip() for word in spec.split("|") if word.strip())


def _key(text: str) -> str:
    return _SEPARATORS.sub("", text).lower()


@lru_cache(maxsize=256)
def _any_word(terms: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern for all ``terms`` (longest first) and the term of each normalised match."""
    ordered = sorted(terms, key=len, reverse=True)
    body = "|".join(r"[\s_-]*".join(re.escape(p) for p in term.split()) for term in ordered)
    pattern = re.compile(rf"(?<![A-Za-z0-9])(?:{body})(?![A-Za-z0-9])", re.I)
    return pattern, {_key(term): term for term in reversed(ordered)}


def words_in(text: str, terms: Iterable[str]) -> tuple[str, ...]:
    """The distinct ``terms`` that occur in ``text`` as whole words, in ``terms`` order.

    Matches do not overlap: where ``CUDA graphs`` occurs, ``CUDA graph`` is not reported too.
    """
    wanted = tuple(terms)
    if not wanted or not text:
        return ()
    pattern, by_key = _any_word(wanted)
    found = {by_key[_key(m[0])] for m in pattern.finditer(text) if _key(m[0]) in by_key}
    return tuple(term for term in dict.fromkeys(wanted) if term in found)


@lru_cache(maxsize=256)
def _first_words(terms: tuple[str, ...]) -> Needles[bool] | re.Pattern[str] | None:
    """The first words of ``terms``: as lower-case needles when all are ASCII, else as one
    case-insensitive pattern."""
    firsts = sorted({term.split()[0] for term in terms if term.split()}, key=len, reverse=True)
    if not firsts:
        return None
    if all(map(str.isascii, firsts)):
        return Needles(dict.fromkeys((first.lower() for first in firsts), True))
    return re.compile("|".join(map(re.escape, firsts)), re.I)


def may_hold(text: str, terms: tuple[str, ...]) -> bool:
    """Whether ``text`` may hold one of ``terms`` as a word: a scan for their first words.

    ``False`` means no part of ``text`` (no line, no text with phrases blanked out) holds any.
    One pass over the :func:`folded` text finds any of the (ASCII) first words; other first
    words are looked for by one case-insensitive pattern.
    """
    firsts = _first_words(terms)
    if firsts is None or not text:
        return False
    if isinstance(firsts, Needles):
        return firsts.any_in(folded(text))
    return firsts.search(text) is not None


@lru_cache(maxsize=256)
def _exact(phrase: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(part) for part in phrase.split())
    return re.compile(rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])")


def without(text: str, phrases: Iterable[str]) -> str:
    """``text`` with each of ``phrases`` blanked out where it occurs as written (case matters)."""
    for phrase in phrases:
        if phrase.strip():
            text = _exact(phrase).sub(" ", text)
    return text


@lru_cache(maxsize=PER_TEXT)
def title_tags(title: str) -> tuple[str, ...]:
    """The lower-cased bracketed tags of a title: ``[ROCm][CI/Build] x`` → rocm, ci, build.

    A conventional-commit prefix counts the same: ``feat(grpc)!: x`` → feature, grpc;
    ``fix(rocm): x`` → bugfix, rocm.
    """
    out: dict[str, None] = {}
    prefix = _CONVENTIONAL.match(title)
    if prefix:
        kind = prefix["type"].lower()
        out.setdefault(_CONVENTIONAL_TYPES.get(kind, kind), None)
        for token in _TAG_SPLIT.split((prefix["scope"] or "").strip().lower()):
            if token:
                out.setdefault(token, None)
    for match in _TAG.finditer(title):
        inner = match[1].strip().lower()
        out.setdefault(inner, None)
        for token in _TAG_SPLIT.split(inner):
            if token:
                out.setdefault(token, None)
    return tuple(out)


def strip_tags(title: str) -> str:
    """A title without its leading bracketed tags and the ``:`` after them."""
    stripped = re.sub(r"^\s*(?:\[[^\[\]]{1,40}\]\s*)+:?\s*", "", title)
    return stripped or title


def is_log_line(line: str) -> bool:
    """Whether ``line`` looks like pasted output (logs, tracebacks, tables, empty env values)."""
    if not line.strip():
        return True
    if _LOG_LINE.match(line) or _INDENTED.match(line):
        return True
    if _KEY_VALUE.match(line) and _EMPTY_VALUE.search(line):
        return True
    letters = sum(map(str.isalpha, line))
    return letters < 0.5 * len(line.strip())


def is_prose_line(line: str) -> bool:
    """Whether ``line`` is written prose: a few words, no log, heading, form text or key: value."""
    if is_log_line(line) or _HEADING.match(line) or _BOILERPLATE.search(line):
        return False
    if _KEY_VALUE.match(line) and len(line) < 80:
        return False
    return word_count(line) >= 4


def text_lines(body: str) -> list[str]:
    """The lines of ``body`` that are not logs (prose, key: value lines, list items)."""
    return [line for line in body.splitlines() if not is_log_line(line)]


def prose_lines(body: str) -> list[str]:
    """The prose lines of ``body``, in order, outside form sections (environment, test plan…)."""
    out: list[str] = []
    skipping = False
    for line in body.splitlines():
        if _HEADING.match(line):
            skipping = bool(_SKIPPED_SECTION.search(line))
        elif not skipping and is_prose_line(line):
            out.append(line.strip())
    return out


def clean_excerpt(
    text: str,
    known_numbers: frozenset[int] = frozenset(),
    known_logins: frozenset[str] = frozenset(),
) -> str:
    """``text`` on one line without URLs, and without @mentions or #refs outside the window data."""
    text = _MD_LINK.sub(lambda m: m[1], text)
    text = _URL.sub(" ", text)
    text = _LEADING_MENTIONS.sub("", text)
    lowered = {login.lower() for login in known_logins}
    text = _MENTION.sub(lambda m: m[0] if m[1].lower() in lowered else "", text)
    text = _DANGLING_REF.sub(lambda m: m[0] if int(m[1]) in known_numbers else "", text)
    text = _EMPHASIS.sub("", text)
    text = re.sub(r"\(\s*(?:cc:?\s*)?\)|\[\s*\]|\bcc:?\s*$", "", text)
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))
    text = _SPACES.sub(" ", text).strip()
    return re.sub(r"\s+([,.;:!?])", r"\1", text).strip(" ,;:")


def shorten(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


def sentences(text: str) -> list[str]:
    """``text`` split into sentences."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def prose_sentences(
    body: str,
    known_numbers: frozenset[int] = frozenset(),
    known_logins: frozenset[str] = frozenset(),
) -> Iterator[str]:
    """The meaningful prose sentences of ``body``, cleaned, in order."""
    for line in prose_lines(body):
        for sentence in sentences(clean_excerpt(line, known_numbers, known_logins)):
            if word_count(sentence) >= 4 and not _COURTESY.search(sentence):
                yield sentence


def first_sentence(
    body: str,
    limit: int = 200,
    known_numbers: frozenset[int] = frozenset(),
    known_logins: frozenset[str] = frozenset(),
) -> str:
    """The first meaningful prose sentence of ``body``, cleaned and shortened; "" when none."""
    found = next(prose_sentences(body, known_numbers, known_logins), "")
    return shorten(found, limit) if found else ""
