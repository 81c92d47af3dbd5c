"""How each language writes what the catalog cannot hold: lists of words, spaces, capitals,
its script and its tag."""

from __future__ import annotations

from collections.abc import Sequence

from digest.i18n.catalog import phrase
from digest.models import Lang

_TAGS = {Lang.ZH: "zh-CN", Lang.EN: "en"}


def join_words(words: Sequence[str], lang: Lang) -> str:
    """``a、b、c`` / ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    sep, last = phrase("common.sep", lang), phrase("common.and", lang)
    return sep.join(words[:-1]) + last + words[-1]


def spaced(lang: Lang) -> bool:
    """Whether ``lang`` puts a space between words and between sentences (English does)."""
    return lang != Lang.ZH


def cased(lang: Lang) -> bool:
    """Whether ``lang`` has capital letters (a sentence starts with one)."""
    return lang != Lang.ZH


def latin_gap(following: str, lang: Lang) -> str:
    """The space Chinese puts before Latin text that follows its own (``其中 Bug 修复``, but
    ``其中性能与内核``); English templates hold their own spaces."""
    return " " if lang == Lang.ZH and following[:1].isascii() else ""


def cjk_script(lang: Lang) -> bool:
    """Whether ``lang`` is written in CJK characters (and needs a CJK font to be drawn)."""
    return lang == Lang.ZH


def lang_tag(lang: Lang) -> str:
    """The language tag of ``lang`` in HTML and Atom: ``zh-CN``, ``en``."""
    return _TAGS[lang]


def other(lang: Lang) -> Lang:
    """The other language, which a reader can switch to."""
    return Lang.EN if lang == Lang.ZH else Lang.ZH
