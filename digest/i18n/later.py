"""An item's fate after its digest's window closed, as a short note: ``3 天后合并``,
``closed as a duplicate later, on 2026-03-14``, ``3 天后由 #M 修复`` (``{by}``: a link to the
fixing PR). key: (zh, en)."""

from __future__ import annotations

from collections.abc import Mapping

LATER: Mapping[str, tuple[str, str]] = {
    "later.note": ("（{note}）", " ({note})"),
    "later.merged.hours": ("{n} 小时后合并", "merged {n} hours later"),
    "later.merged.hours.one": ("1 小时后合并", "merged an hour later"),
    "later.merged.soon": ("不到 1 小时即合并", "merged within the hour"),
    "later.merged.days": ("{n} 天后合并", "merged {n} days later"),
    "later.merged.days.one": ("1 天后合并", "merged a day later"),
    "later.fixed.hours": ("{n} 小时后由 {by} 修复", "fixed {n} hours later by {by}"),
    "later.fixed.hours.one": ("1 小时后由 {by} 修复", "fixed an hour later by {by}"),
    "later.fixed.soon": ("不到 1 小时即由 {by} 修复", "fixed within the hour by {by}"),
    "later.fixed.days": ("{n} 天后由 {by} 修复", "fixed {n} days later by {by}"),
    "later.fixed.days.one": ("1 天后由 {by} 修复", "fixed a day later by {by}"),
    "later.closed.pr": ("后于 {date} 关闭，未合并", "closed without merging later, on {date}"),
    "later.closed": ("后于 {date} 关闭", "closed later, on {date}"),
    "later.closed.completed": ("后于 {date} 解决并关闭", "closed as completed later, on {date}"),
    "later.closed.not_planned": (
        "后于 {date} 标记为不予处理并关闭",
        "closed as not planned later, on {date}",
    ),
    "later.closed.duplicate": (
        "后于 {date} 作为重复问题关闭",
        "closed as a duplicate later, on {date}",
    ),
}
