"""Every fixed word of the core, in Chinese (``zh``) and English (``en``): the catalog and
its lookups (``catalog``), the report's sentences (``phrases``), answers (``answers``), notes
(``notes``), the website (``site``), and the words built from them (``counts``, ``titles``,
``states``, ``writing``)."""

from digest.i18n.catalog import PLACEHOLDER, Note, fill, has_phrase, phrase, pick, t
from digest.i18n.counts import (
    count_label,
    count_of,
    counts_line,
    counts_lines,
    duration,
    fallbacks_text,
    percent,
)
from digest.i18n.states import state_of
from digest.i18n.titles import (
    TOPIC_PREFIX,
    digest_title,
    group_title,
    heading,
    list_title,
    report_title,
    topic_noun,
    topic_title,
    trend_kind,
)
from digest.i18n.writing import cased, cjk_script, join_words, lang_tag, latin_gap, other, spaced

__all__ = [
    "PLACEHOLDER",
    "TOPIC_PREFIX",
    "Note",
    "cased",
    "cjk_script",
    "count_label",
    "count_of",
    "counts_line",
    "counts_lines",
    "digest_title",
    "duration",
    "fallbacks_text",
    "fill",
    "group_title",
    "has_phrase",
    "heading",
    "join_words",
    "lang_tag",
    "latin_gap",
    "list_title",
    "other",
    "percent",
    "phrase",
    "pick",
    "report_title",
    "spaced",
    "state_of",
    "t",
    "topic_noun",
    "topic_title",
    "trend_kind",
]
