"""Building rich-text spans: sentences from templates, links to items and users."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from urllib.parse import urlsplit

from digest.analysis.text import shorten, strip_tags
from digest.i18n import PLACEHOLDER, phrase, spaced
from digest.models import (
    Block,
    Inline,
    Item,
    ItemRef,
    Lang,
    Link,
    Pointer,
    Text,
    UserRef,
    map_spans,
)

Part = str | int | Inline | Sequence[Inline]
Spans = tuple[Inline, ...]


@lru_cache(maxsize=64)
def _host(repo_url: str) -> str:
    parts = urlsplit(repo_url)
    return f"{parts.scheme or 'https'}://{parts.netloc or 'github.com'}"


def user_url(repo_url: str, login: str) -> str:
    """The profile page of ``login`` on the host of ``repo_url`` (bots: their app page)."""
    base = _host(repo_url)
    if login.endswith("[bot]"):
        return f"{base}/apps/{login[: -len('[bot]')]}"
    return f"{base}/{login}"


def user_ref(repo_url: str, login: str) -> UserRef:
    """A link to ``login``."""
    return UserRef(login=login, url=user_url(repo_url, login))


def item_ref(item: Item, title: bool = True, limit: int = 0) -> ItemRef:
    """A link to ``item``, with its title (shortened to ``limit`` characters when set)."""
    text = item.title if title else ""
    if limit:
        text = shorten(text, limit)
    return ItemRef(number=item.number, url=item.url, title=text)


REPEAT_TITLE = 30  # characters of an item's title once the section has named it in full


def repeats_shortened(blocks: Sequence[Block], limit: int = REPEAT_TITLE) -> tuple[Block, ...]:
    """``blocks`` with each item's link text shortened after its first mention: the title
    without its tags, cut to ``limit`` characters (the reader has read it once)."""
    seen: set[str] = set()  # by URL: two repositories of a scope may share a number

    def short(spans: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for span in spans:
            if isinstance(span, ItemRef) and span.title:
                if span.url in seen:
                    span = replace(span, title=shorten(strip_tags(span.title), limit))
                seen.add(span.url)
            out.append(span)
        return tuple(out)

    return map_spans(blocks, short)


def tidy(spans: Sequence[Inline]) -> Spans:
    """Adjacent plain Text spans merged, empty ones dropped."""
    out: list[Inline] = []
    for span in spans:
        _add(out, span)
    return tuple(out)


def _add(out: list[Inline], span: Inline) -> None:
    """Append ``span`` to tidy spans ``out``, keeping them tidy."""
    if isinstance(span, Text):
        if not span.text:
            return
        if span.style == "plain" and out:
            last = out[-1]
            if isinstance(last, Text) and last.style == "plain":
                out[-1] = Text(last.text + span.text)
                return
    out.append(span)


@lru_cache(maxsize=1024)
def _pieces(template: str) -> tuple[tuple[str, str, str], ...]:
    """``template`` split at its placeholders: (text before, name, placeholder as written),
    the last piece with the text after the last placeholder and no name."""
    out: list[tuple[str, str, str]] = []
    pos = 0
    for match in PLACEHOLDER.finditer(template):
        out.append((template[pos : match.start()], match[1], match[0]))
        pos = match.end()
    out.append((template[pos:], "", ""))
    return tuple(out)


def compose(template: str, /, **parts: Part) -> Spans:
    """The spans of ``template`` with each ``{name}`` replaced by ``parts[name]``.

    The template is split once, so strings in ``parts`` (titles, quotes) are never parsed as
    placeholders; they become ``Text`` spans that renderers escape.
    """
    out: list[Inline] = []
    for before, name, written in _pieces(template):
        if before:
            _add(out, Text(before))
        if not name:
            continue
        part = parts.get(name, written)
        if isinstance(part, Text | ItemRef | UserRef | Link | Pointer):
            _add(out, part)
        elif isinstance(part, str | int):
            _add(out, Text(str(part)))
        else:
            for span in part:
                _add(out, span)
    return tuple(out)


def say(key: str, lang: Lang, plural: int | None = None, /, **parts: Part) -> Spans:
    """``compose`` of the phrase ``key`` in ``lang`` (``plural``: see ``i18n.phrase``)."""
    return compose(phrase(key, lang, plural), **parts)


def join(groups: Sequence[Sequence[Inline]], lang: Lang, last: bool = True) -> Spans:
    """Span groups joined like words: ``a、b`` / ``a, b and c`` (``last=False``: commas only)."""
    sep = phrase("common.sep", lang)
    final = phrase("common.and", lang) if last else sep
    out: list[Inline] = []
    for index, group in enumerate(groups):
        if index:
            out.append(Text(final if index == len(groups) - 1 else sep))
        out.extend(group)
    return tidy(out)


def quoted(text: str, lang: Lang) -> Spans:
    """``“text”`` as one span."""
    return compose(phrase("common.quote", lang), text=text)


def append_sentence(out: list[Inline], spans: Spans, lang: Lang) -> None:
    """Add a sentence to a paragraph: English sentences are separated by a space."""
    if out and spaced(lang):
        out.append(Text(" "))
    out.extend(spans)
