"""Items as they stood when a window closed, and what became of them later.

A digest built after its window closed shows each item as it was at the window's end (a later
merge or close undone; titles and labels stay as they are now) and notes its later fate beside
its first link in each section: ``(merged 3 days later)``, ``（后于 2026-03-14 作为重复问题关闭）``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from digest.analysis.followups import as_of
from digest.analysis.types import WindowData
from digest.i18n import t
from digest.models import (
    Inline,
    Item,
    ItemKey,
    ItemRef,
    Lang,
    Later,
    Section,
    Text,
    Window,
    map_spans,
)
from digest.windows import zone

_HOUR = timedelta(hours=1)
_DAY = timedelta(days=1)


def later_of(item: Item, end: datetime) -> Later | None:
    """What became of ``item`` at or after ``end``: its merge or close, else ``None``."""
    if item.closed_at is None or item.closed_at < end:
        return None
    if item.merged_at is not None:
        return Later(item.number, "merged", item.merged_at, None, item.is_pr)
    return Later(item.number, "closed", item.closed_at, item.state_reason, item.is_pr)


def at_end(data: WindowData) -> WindowData:
    """``data`` as it stood when its window closed: every item (of the previous window and
    the history too) with a later merge or close undone, and those fates in ``later``."""
    end = data.window.end
    fates: dict[ItemKey, Later] = {}

    def seen(items: Iterable[Item]) -> tuple[Item, ...]:
        out = []
        for item in items:
            found = later_of(item, end)
            if found is not None:
                fates.setdefault(item.key, found)
                item = as_of(item, end)
            out.append(item)
        return tuple(out)

    previous = data.previous
    if previous is not None:
        previous = replace(previous, items=seen(previous.items))
    history = tuple(seen(items) for items in data.history)
    items = seen(data.items)
    later = tuple(fates[k] for k in sorted(fates))
    return replace(data, items=items, previous=previous, history=history, later=later)


def later_text(later: Later, window: Window, lang: Lang) -> str:
    """The fate as a short phrase: ``merged 3 days later``, ``后于 2026-03-14 作为重复问题关闭``."""
    if later.event == "merged":
        gap = later.at - window.end
        if gap < _DAY:
            hours = int(gap / _HOUR)
            if not hours:
                return t("later.merged.soon", lang)
            return t("later.merged.hours", lang, hours, n=hours)
        days = int(gap / _DAY)
        return t("later.merged.days", lang, days, n=days)
    date = later.at.astimezone(zone(window.timezone)).date().isoformat()
    if later.is_pr:
        return t("later.closed.pr", lang, date=date)
    reason = later.reason or ""
    known = ("completed", "not_planned", "duplicate")
    return t(f"later.closed.{reason}" if reason in known else "later.closed", lang, date=date)


def noted(
    sections: Iterable[Section], later: Iterable[Later], window: Window, lang: Lang
) -> tuple[Section, ...]:
    """``sections`` with each later fate noted after the first link to its item in each (a
    fate and a link name their repository alike: both or neither)."""
    notes = {
        (f.repo, f.number): t("later.note", lang, note=later_text(f, window, lang)) for f in later
    }
    if not notes:
        return tuple(sections)
    return tuple(_noted(section, notes) for section in sections)


def _noted(section: Section, notes: Mapping[tuple[str, int], str]) -> Section:
    done: set[tuple[str, int]] = set()

    def spans(given: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for span in given:
            out.append(span)
            key = (span.repo, span.number) if isinstance(span, ItemRef) else None
            if key is not None and key in notes and key not in done:
                done.add(key)
                out.append(Text(notes[key]))
        return tuple(out)

    return replace(section, blocks=map_spans(section.blocks, spans))
