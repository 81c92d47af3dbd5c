"""The catalog: every phrase of the core by key, in Chinese (``zh``) and English (``en``).

Templates hold ``{name}`` placeholders. ``t`` fills them with plain values in one pass (a value
is never parsed again, so text from GitHub cannot smuggle in a placeholder); writers that mix
links into a sentence split the raw ``phrase`` with ``digest.spans.compose`` instead.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass

from digest.i18n.answers import ANSWERS
from digest.i18n.follows import FOLLOWS
from digest.i18n.later import LATER
from digest.i18n.limits import LIMITS
from digest.i18n.notes import NOTES
from digest.i18n.phrases import PHRASES
from digest.i18n.scopes import SCOPES
from digest.models import Lang

PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")

_CATALOG: Mapping[str, tuple[str, str]] = ChainMap(
    dict(PHRASES),
    dict(ANSWERS),
    dict(NOTES),
    dict(FOLLOWS),
    dict(LIMITS),
    dict(LATER),
    dict(SCOPES),
)


def pick(pair: tuple[str, str], lang: Lang) -> str:
    """The word of ``pair`` (zh, en) in ``lang``."""
    return pair[0] if lang == Lang.ZH else pair[1]


def phrase(key: str, lang: Lang, plural: int | None = None) -> str:
    """The raw template ``key`` in ``lang``; its ``.one`` variant when ``plural == 1``."""
    if plural == 1 and f"{key}.one" in _CATALOG:
        key = f"{key}.one"
    return pick(_CATALOG[key], lang)


def has_phrase(key: str) -> bool:
    """Whether the catalog holds ``key``."""
    return key in _CATALOG


def fill(template: str, values: Mapping[str, object]) -> str:
    """``template`` with its placeholders replaced in one pass; unknown ones stay as they are."""
    return PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], template)


def t(key: str, lang: Lang, plural: int | None = None, /, **values: object) -> str:
    """The phrase ``key`` in ``lang`` filled with ``values`` (``plural``: see ``phrase``)."""
    return fill(phrase(key, lang, plural), values)


@dataclass(frozen=True, slots=True)
class Note:
    """A note said later, in each reader's language: a catalog key and its values, where a
    value named ``what`` is a catalog key too (the name of what is missing)."""

    key: str
    values: tuple[tuple[str, str], ...] = ()

    def text(self, lang: Lang) -> str:
        values = dict(self.values)
        if "what" in values:
            values["what"] = t(values["what"], lang)
        return t(self.key, lang, **values)
