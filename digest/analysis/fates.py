"""Items as they stood when a window closed, and what became of them later.

A digest built after its window closed shows each item as it was at the window's end (a later
merge or close undone; titles and labels stay as they are now) and notes its later fate beside
its first link in each section: ``(merged 3 days later)``, ``（后于 2026-03-14 作为重复问题关闭）``,
and for an issue a merged PR closed, that PR as a link: ``(fixed 3 days later by #M)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from digest.analysis.followups import as_of, fixers
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
from digest.spans import Spans, say
from digest.windows import zone

_HOUR = timedelta(hours=1)
_DAY = timedelta(days=1)
FIX_GAP = timedelta(minutes=5)  # a fixing PR's merge and its issue's close, at most this apart


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


def fixing(later: Later, prs: Iterable[Item], repo: str) -> Later:
    """``later`` naming the PR that closed it, for an issue of ``repo`` closed as completed (or
    without a reason): among ``prs``, a merged PR of its repository that says it fixes it
    (``Fixes #N``) and was merged at most :data:`FIX_GAP` before or after the close (GitHub
    closes the issue seconds after the merge), the one merged nearest the close (of two as
    near, the newer PR). ``later`` as it is otherwise."""
    if later.is_pr or later.event != "closed" or later.reason not in (None, "completed"):
        return later
    found = [
        (abs(pr.merged_at - later.at), pr.number)
        for pr in fixers(prs).get(ItemKey(later.repo or repo, later.number), [])
        if pr.merged_at is not None and abs(pr.merged_at - later.at) <= FIX_GAP
    ]
    if not found:
        return later
    return replace(later, by=min(found, key=lambda f: (f[0], -f[1]))[1])


def fixed_later(data: WindowData, prs: Iterable[Item]) -> WindowData:
    """``data`` with each issue's later close naming the PR of ``prs`` that closed it
    (:func:`fixing`)."""
    prs = list(prs)
    later = tuple(fixing(f, prs, data.repo) for f in data.later)
    return data if later == data.later else replace(data, later=later)


def later_spans(later: Later, window: Window, lang: Lang, url: str = "") -> Spans:
    """The fate as a short phrase: ``merged 3 days later``, ``后于 2026-03-14 作为重复问题关闭``,
    ``fixed 3 days later by #M`` (``#M`` a link, beside the issue at ``url`` and named like it
    when the fate names its repository)."""
    if later.event == "merged" or later.by is not None:
        event = "merged" if later.by is None else "fixed"
        parts: dict[str, ItemRef] = {}
        if later.by is not None:
            parts["by"] = ItemRef(later.by, _pull_url(url, later.by), repo=later.repo)
        gap = later.at - window.end
        if gap < _DAY:
            hours = int(gap / _HOUR)
            if not hours:
                return say(f"later.{event}.soon", lang, **parts)
            return say(f"later.{event}.hours", lang, hours, n=hours, **parts)
        days = int(gap / _DAY)
        return say(f"later.{event}.days", lang, days, n=days, **parts)
    return (Text(later_text(later, window, lang)),)


def _pull_url(url: str, number: int) -> str:
    """PR ``number``'s page in the repository of the item page ``url``."""
    base = url.rstrip("/").rsplit("/", 2)[0] if url.count("/") > 4 else url.rstrip("/")
    return f"{base}/pull/{number}"


def later_text(later: Later, window: Window, lang: Lang) -> str:
    """The fate as a short phrase, as plain text (a fixing PR by its label: ``#M``)."""
    if later.event == "merged" or later.by is not None:
        spans = later_spans(later, window, lang)
        return "".join(s.label if isinstance(s, ItemRef) else getattr(s, "text", "") for s in spans)
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
    fates = {(f.repo, f.number): f for f in later}
    if not fates:
        return tuple(sections)

    def note(fate: Later, link: ItemRef) -> Spans:
        return say("later.note", lang, note=later_spans(fate, window, lang, link.url))

    return tuple(_noted(section, fates, note) for section in sections)


def _noted(
    section: Section,
    fates: Mapping[tuple[str, int], Later],
    note: Callable[[Later, ItemRef], Spans],
) -> Section:
    done: set[tuple[str, int]] = set()

    def spans(given: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for span in given:
            out.append(span)
            if not isinstance(span, ItemRef):
                continue
            key = (span.repo, span.number)
            if key in fates and key not in done:
                done.add(key)
                out.extend(note(fates[key], span))
        return tuple(out)

    return replace(section, blocks=map_spans(section.blocks, spans))
