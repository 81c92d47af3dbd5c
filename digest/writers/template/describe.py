"""An item described from its facts, in the report's language: its kind (缺陷修复, 性能优化…),
the areas it touches (the glossary's 推测解码, KV 缓存…), the names it carries (models,
hardware) and the numbers its description reports; and the impact of a change.

The zh report never quotes an English sentence: where the English report gives the
description's own words, the Chinese one says these facts.
"""

from __future__ import annotations

import re
from dataclasses import replace

from digest.analysis.excerpts import excerpt_part
from digest.analysis.facts import identifiers, measured
from digest.analysis.kinds import kind_of
from digest.analysis.text import strip_tags
from digest.analysis.trends import mentions
from digest.i18n import cased, join_words, latin_gap, phrase
from digest.i18n.glossary import found
from digest.models import Item, Lang, Text
from digest.spans import Spans, say, tidy
from digest.writers.template.context import Context

NAMES_LIMIT = 2
_HAN = re.compile(r"[\u3400-\u9fff]")


def chinese(text: str) -> bool:
    """Whether ``text`` is written in Chinese (a third of its characters or more)."""
    return bool(text) and len(_HAN.findall(text)) * 3 >= len(text.replace(" ", ""))


def subject(ctx: Context, item: Item) -> str:
    """The text an item's areas are read from: its title and its excerpt, not the whole body
    (a word in a pasted log or an aside is no area)."""
    return f"{strip_tags(item.title)} {ctx.what(item, 400)}"


def names(ctx: Context, item: Item, limit: int = NAMES_LIMIT) -> list[str]:
    """The model and hardware names of the item's title (names stay as written), those the
    glossary already names as an area left out."""
    terms = mentions(replace(item, body_excerpt=""))
    shown = [t.term for t in terms if t.kind in ("model", "hardware")]
    return [name for name in shown if not found(name, ctx.glossary)][:limit]


def _listed(words_: list[str], lang: Lang) -> str:
    text = join_words(words_, lang)
    return latin_gap(text, lang) + text


def describe(ctx: Context, item: Item) -> Spans:
    """``缺陷修复，涉及 KV 缓存、注意力（Qwen3）；描述给出的数据：hellaswag 0.60 → 0.26。``"""
    lang = ctx.lang
    kind = phrase(f"kind.{kind_of(item)}", lang)
    out: list[Spans] = [(Text(kind[:1].upper() + kind[1:] if cased(lang) else kind),)]
    areas = ctx.areas(subject(ctx, item))
    if areas:
        out.append(say("describe.areas", lang, areas=_listed(areas, lang)))
    shown = names(ctx, item)
    if shown:
        out.append(say("describe.names", lang, names=join_words(shown, lang)))
    code = identifiers(excerpt_part(item.body_excerpt, item.is_pr), 1)
    if code:
        out.append(say("describe.code", lang, code=Text(code[0], "code")))
    numbers = measured(item.body_excerpt, 2)
    if numbers:
        out.append(say("describe.numbers", lang, numbers=join_words(list(numbers), lang)))
    out.append((Text(phrase("describe.end", lang)),))
    return tidy([span for part in out for span in part])


def content(ctx: Context, item: Item) -> Spans:
    """What an item is about, as the report's language allows: in English the description's
    own words (else its facts); in Chinese its facts, or its words when they are Chinese."""
    what = ctx.what(item)
    if what and (ctx.lang != Lang.ZH or chinese(what)):
        return (Text(what),)
    return describe(ctx, item)


def effect(ctx: Context, item: Item) -> Spans:
    """``影响：直接提升注意力后端的性能。`` from the change's kind and the areas it touches."""
    lang = ctx.lang
    kind = kind_of(item)
    if kind not in ("revert", "docs", "ci", "deps", "perf", "refactor", "fix", "feature"):
        kind = "fix" if kind == "bug" else "feature"
    areas = ctx.areas(subject(ctx, item), 2)
    where = _listed(areas, lang) if areas else phrase("effect.nowhere", lang)
    return say("changes.impact", lang, impact=say(f"effect.{kind}", lang, areas=where))
