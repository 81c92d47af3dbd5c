"""Understanding a question: repository, window, topic, search terms, kind filters, language."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from digest.ask.terms import GLOSSARY, is_cjk
from digest.ask.time_phrases import When, resolve_when
from digest.github.names import valid_repo
from digest.i18n import t
from digest.models import Lang, Topic

MAX_CHARS = 500
MAX_TERMS = 6

_OPTION = re.compile(r"(?<!\S)(?:--)?(repo|lang)[:=](\S*)", re.I)
_CONTRACTION = re.compile(r"(?<=[A-Za-z])['’](?:s|re|ve|ll|d|t|m)\b", re.I)
_TOKEN = re.compile(r"#?[A-Za-z0-9](?:[A-Za-z0-9._+-]*[A-Za-z0-9+])?")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")

_STOPWORD_TEXT = """
a about above across activity actually after again all also am an and any anybody anyone
anything are around as ask asked at be been being between both but by can change changes
changed could current currently day days did do does doing don done during each else
ever every everything few for from get gets getting give go goes going gone got had has have
having hear heard hello help hey hi how i if in into is isn it its just know last latest let
like lot lots may me mean more most much my new news next now of off on one only or other our
out over please progress recent recently regarding related really s say see seen show since so
some something state status stuff summarise summarize summary tell than thanks that the
their them then there these they thing things this those through to today too up update
updates upon us very via want was we week weeks well were what whats when where whether which
while who whom why will with within work worked working would yeah yes yet you your
doesn didn aren wasn weren won can cannot couldn shouldn wouldn haven hasn
happen happened happening happens going-on ongoing lately anymore around
gpu gpus card cards hardware backend backends ecosystem platform platforms support supported
side team teams area areas front vs versus team's report digest info information overview
github repo repository project tomorrow here question questions answer answers
many people folks everyone everybody guys item items list fix fixes fixed fixing add adds
added adding top key main major notable important interesting big biggest highlight
highlights noteworthy worth should shall might must need needs
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_FILLER_ZH = (
    "请问",
    "帮我",
    "帮忙",
    "总结",
    "概括",
    "汇总",
    "东西",
    "现在",
    "目前",
    "状态",
    "进度",
    "显卡",
    "怎样",
    "多少",
    "几个",
    "一些",
    "主要",
    "重要",
    "值得",
    "关注",
    "啥",
    "推理",
    "告诉我",
    "看看",
    "一下",
    "有没有",
    "有什么",
    "有哪些",
    "什么",
    "哪些",
    "怎么样",
    "如何",
    "最新",
    "最近",
    "新的",
    "进展",
    "动态",
    "消息",
    "情况",
    "发生了",
    "发生",
    "变化",
    "更新",
    "方面",
    "相关",
    "关于",
    "生态",
    "支持",
    "工作",
    "问题",
    "讨论",
    "热门",
    "合并",
    "审核",
    "打开",
    "未关闭",
    "关闭",
    "新增",
    "新",
    "了",
    "的",
    "吗",
    "呢",
    "吧",
    "啊",
    "呀",
    "么",
    "在",
    "和",
    "与",
    "及",
    "有",
    "是",
    "中",
    "上",
    "里",
    "我",
    "你",
    "们",
    "下",
    "哪",
    "谁",
    "都",
    "还",
    "也",
    "就",
    "把",
    "被",
    "给",
    "对",
    "个",
    "项",
    "这",
    "那",
    "些",
)


class Kind(StrEnum):
    """A filter on the items of an answer."""

    MERGED = "merged"
    OPEN = "open"
    CLOSED = "closed"
    NEW = "new"
    ISSUE = "issue"
    PR = "pr"
    HOT = "hot"


_B = r"(?<![A-Za-z0-9])"  # a word boundary that holds next to CJK text too ("哪些PR")
_E = r"(?![A-Za-z0-9])"
_NOUN = r"(?:issues?|bugs?|bug\s+reports?|prs?|pull\s+requests?)"
_UNMERGED = re.compile(
    rf"{_B}(?:closed\s+(?:without|but\s+not|and\s+not)\s+(?:being\s+)?merg(?:ing|ed)|rejected"
    rf"|abandoned){_E}|关闭(?:但|且|了)?未合并|未合并(?:就|即|而)?(?:被)?关闭",
    re.I,
)
_KINDS: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        re.compile(
            rf"{_B}new\s+(?:[\w.-]+\s+){{0,2}}?{_NOUN}{_E}|{_B}(?:opened|filed|reported){_E}"
            r"|新\s*(?:issue|pr|问题)|新增",
            re.I,
        ),
        Kind.NEW,
    ),
    (
        re.compile(
            rf"{_B}(?:open|unresolved|unmerged|pending|outstanding){_E}"
            r"|未关闭|未解决|未合并|待合并|待处理",
            re.I,
        ),
        Kind.OPEN,
    ),
    (re.compile(rf"{_B}(?:closed|resolved){_E}|已关闭|关闭的", re.I), Kind.CLOSED),
    (re.compile(rf"{_B}(?:merged|landed){_E}|已?合并|合入", re.I), Kind.MERGED),
    (re.compile(rf"{_B}(?:prs?|pull\s+requests?){_E}", re.I), Kind.PR),
    (re.compile(rf"{_B}(?:issues?|bugs?|bug\s+reports?){_E}|问题|故障", re.I), Kind.ISSUE),
    (
        re.compile(
            rf"{_B}(?:discussions?|discussed|debated?|debates|hot|heated|controversial|"
            rf"busiest|most\s+active|talk(?:ing|ed)?\s+about|trending){_E}|热门|讨论|争议|热议",
            re.I,
        ),
        Kind.HOT,
    ),
)


@dataclass(frozen=True, slots=True)
class RepoInfo:
    """What a question needs to know about a configured repository."""

    name: str  # owner/name
    display_name: str = ""
    timezone: str = "UTC"
    day_start: str = "00:00"

    @property
    def shown(self) -> str:
        return self.display_name or self.name.split("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class Question:
    """A question as understood: what to search, where, when, and in which language."""

    text: str  # the cleaned question
    repo: str
    display_name: str
    when: When
    lang: Lang
    topic: Topic | None = None
    terms: tuple[str, ...] = ()
    kinds: frozenset[Kind] = field(default_factory=frozenset)
    notes: tuple[str, ...] = ()

    @property
    def general(self) -> bool:
        """Whether the question names neither a topic nor a search term."""
        return self.topic is None and not self.terms


def clean(text: str) -> str:
    """``text`` normalised (full-width forms, control characters) and cut to a sane length."""
    text = unicodedata.normalize("NFKC", str(text or ""))
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text)
    return " ".join(text.split())[:MAX_CHARS]


def detect_lang(text: str, default: Lang = Lang.EN) -> Lang:
    """Chinese for a question with CJK characters, English for other words, else ``default``."""
    if is_cjk(text):
        return Lang.ZH
    if re.search(r"[^\W\d_]", text):
        return Lang.EN
    return default


def _cut(text: str, start: int, end: int) -> str:
    return f"{text[:start]} {text[end:]}"


def _option(text: str, name: str) -> tuple[str | None, str]:
    found: str | None = None
    for match in list(_OPTION.finditer(text))[::-1]:
        if match[1].lower() == name:
            found = found or match[2]
            text = _cut(text, match.start(), match.end())
    return found, text


def _repo(text: str, repos: Sequence[RepoInfo]) -> tuple[RepoInfo | None, str]:
    """A configured repository named in ``text`` (owner/name, name or display name)."""
    for info in repos:
        names = {info.name, info.name.split("/", 1)[-1], info.shown}
        for name in sorted(names, key=len, reverse=True):
            pattern = re.compile(rf"(?<![\w/.-]){re.escape(name)}(?![\w/-])", re.I)
            match = pattern.search(text)
            if match:
                return info, _cut(text, match.start(), match.end())
    return None, text


def _topic(text: str, topics: Sequence[Topic]) -> tuple[Topic | None, str]:
    """The topic ``text`` names by name or synonym (the one named most often wins)."""
    best: Topic | None = None
    best_hits = 0
    for topic in topics:
        words = {topic.name, *topic.synonyms}
        hits = sum(1 for word in words if word and _word_hit(text, word))
        if hits > best_hits:
            best, best_hits = topic, hits
    if best is None:
        return None, text
    for word in sorted({best.name, *best.synonyms}, key=len, reverse=True):
        text = _word_re(word).sub(" ", text)
    return best, text


def _word_re(word: str) -> re.Pattern[str]:
    if is_cjk(word):
        return re.compile(re.escape(word), re.I)
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", re.I)


def _word_hit(text: str, word: str) -> bool:
    return _word_re(word).search(text) is not None


def _take_new(pattern: re.Pattern[str], text: str) -> tuple[list[str], str]:
    """The "new …" phrases of ``text``, and ``text`` keeping only what sits between "new" and
    its noun ("new ROCm issues" leaves "ROCm")."""
    found: list[str] = []
    kept: list[str] = []
    at = 0
    for match in pattern.finditer(text):
        found.append(match[0])
        inner = ""
        if match[0].lower().startswith("new"):
            inner = re.sub(rf"^new\s+|{_NOUN}$", " ", match[0], flags=re.I)
        kept += [text[at : match.start()], f" {inner} "]
        at = match.end()
    return found, "".join([*kept, text[at:]])


def _kinds(text: str) -> tuple[frozenset[Kind], str]:
    kinds: set[Kind] = set()
    if _UNMERGED.search(text):  # before "未合并" reads as open
        kinds |= {Kind.CLOSED, Kind.PR}
        text = _UNMERGED.sub(" ", text)
    for pattern, kind in _KINDS:
        if kind is Kind.NEW:
            found, text = _take_new(pattern, text)
            if found:
                kinds.add(kind)
                kinds |= {
                    k
                    for p, k in _KINDS
                    if k in (Kind.PR, Kind.ISSUE) and any(p.search(f) for f in found)
                }
            continue
        if pattern.search(text):
            kinds.add(kind)
            text = pattern.sub(" ", text)
    if Kind.MERGED in kinds:
        kinds.add(Kind.PR)
        kinds.discard(Kind.ISSUE)
    if Kind.ISSUE in kinds and Kind.PR in kinds:
        kinds -= {Kind.ISSUE, Kind.PR}
    return frozenset(kinds), text


def _latin_terms(text: str) -> list[str]:
    text = _CONTRACTION.sub("", text)
    terms: list[str] = []
    joinable = False  # whether the last kept token came right before this one
    for token in _TOKEN.findall(text):
        if token.startswith("#"):
            if token[1:].isdigit():
                terms.append(str(int(token[1:])))
            joinable = False
            continue
        if token.lower() in _STOPWORDS or (len(token) == 1 and not token.isdigit()):
            joinable = False
            continue
        if token[0].isdigit() and joinable and terms[-1].isalpha():
            terms[-1] = f"{terms[-1]} {token}"  # "qwen 3.5", "mi 300x", "gfx 942"
            joinable = False
            continue
        terms.append(token)
        joinable = True
    return terms


_GLOSSARY_WORD = re.compile(
    "(" + "|".join(sorted(map(re.escape, GLOSSARY), key=len, reverse=True)) + ")"
)


def _cjk_terms(text: str) -> list[str]:
    terms: list[str] = []
    for run in _CJK_RUN.findall(text):
        for piece in _GLOSSARY_WORD.split(run):  # "推理性能" holds the glossary word 性能
            if piece in GLOSSARY:
                terms.append(piece)
                continue
            for filler in _FILLER_ZH:
                piece = piece.replace(filler, " ")
            terms.extend(part for part in piece.split() if len(part) >= 2)
    return terms


def _terms(text: str) -> list[str]:
    return list(dict.fromkeys(_latin_terms(text) + _cjk_terms(text)))


def parse_question(
    text: str,
    *,
    now: datetime,
    topics: Sequence[Topic],
    repos: Sequence[RepoInfo],
    default_repo: str,
    repo: str | None = None,
    lang: Lang | None = None,
    default_lang: Lang = Lang.EN,
) -> Question:
    """Understand ``text``. Never raises for any text; unknown words become search terms.

    ``repo`` and ``lang`` (from the command's options) win over what the text says.
    """
    cleaned = clean(text)
    rest = cleaned
    text_repo, rest = _option(rest, "repo")
    text_lang, rest = _option(rest, "lang")
    lang = lang or Lang.parse(text_lang) or detect_lang(cleaned, default_lang)
    notes: list[str] = []
    chosen = repo or (text_repo if text_repo and valid_repo(text_repo) else None)
    if text_repo and not valid_repo(text_repo) and not repo:
        shown = text_repo[:60]
        notes.append(t("note.bad_repo", lang, repo=shown))
    named, rest = _repo(rest, repos)
    if chosen is None:
        chosen = named.name if named else default_repo
    info = next((r for r in repos if r.name.lower() == chosen.lower()), None)
    info = info or RepoInfo(chosen)
    when = resolve_when(rest, now=now, timezone=info.timezone, day_start=info.day_start, lang=lang)
    if when.phrase:
        rest = rest.replace(when.phrase, " ", 1)
    notes.extend(when.notes)
    kinds, rest = _kinds(rest)
    topic, rest = _topic(rest, topics)
    terms = _terms(rest)
    if len(terms) > MAX_TERMS:
        terms = terms[:MAX_TERMS]
        notes.append(t("note.first_terms", lang, n=MAX_TERMS))
    return Question(
        text=cleaned,
        repo=info.name,
        display_name=info.shown,
        when=when,
        lang=lang,
        topic=topic,
        terms=tuple(terms),
        kinds=kinds,
        notes=tuple(notes),
    )


__all__ = ["Kind", "Question", "RepoInfo", "clean", "detect_lang", "parse_question"]
