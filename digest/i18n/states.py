"""An item's state in words: ``已合并``, ``closed as not planned``, ``draft``…"""

from __future__ import annotations

from digest.i18n.catalog import phrase
from digest.models import Item, ItemState, Lang


def state_of(item: Item, lang: Lang) -> str:
    """The item's state as words: ``已合并``, ``closed as not planned``, ``draft``…"""
    if item.is_pr:
        if item.is_merged:
            key = "state.pr.merged"
        elif item.state is ItemState.OPEN:
            key = "state.pr.draft" if item.draft else "state.pr.open"
        else:
            key = "state.pr.closed"
    elif item.state is ItemState.OPEN:
        key = "state.issue.open"
    else:
        reason = item.state_reason or ""
        known = ("completed", "not_planned", "duplicate")
        key = f"state.issue.{reason}" if reason in known else "state.issue.closed"
    return phrase(key, lang)
