"""A later fate as the sections note it: a short phrase in each language."""

from __future__ import annotations

import pytest

from digest.models import Lang, Later, Window
from digest.writers.later import later_text
from tests.support.store_samples import at

WINDOW = Window(at(0), at(24), "Asia/Shanghai", "2026-03-10")


@pytest.mark.parametrize(
    ("later", "en", "zh"),
    [
        (Later(1, "merged", at(24.5), None, True), "merged within the hour", "不到 1 小时即合并"),
        (Later(1, "merged", at(25.5), None, True), "merged an hour later", "1 小时后合并"),
        (Later(1, "merged", at(24 + 5), None, True), "merged 5 hours later", "5 小时后合并"),
        (Later(1, "merged", at(24 * 2 + 3), None, True), "merged a day later", "1 天后合并"),
        (
            Later(1, "closed", at(24 * 3), None, True),
            "closed without merging later, on 2026-03-13",
            "后于 2026-03-13 关闭，未合并",
        ),
        (
            Later(1, "closed", at(24 * 3), "not_planned"),
            "closed as not planned later, on 2026-03-13",
            "后于 2026-03-13 标记为不予处理并关闭",
        ),
        (
            Later(1, "closed", at(24 * 3), "completed"),
            "closed as completed later, on 2026-03-13",
            "后于 2026-03-13 解决并关闭",
        ),
        (
            Later(1, "closed", at(24 * 3), None),
            "closed later, on 2026-03-13",
            "后于 2026-03-13 关闭",
        ),
        (
            Later(1, "closed", at(24 * 4 + 2), "completed", by=9),
            "fixed 3 days later by #9",
            "3 天后由 #9 修复",
        ),
        (
            Later(1, "closed", at(24 + 5), "completed", by=9),
            "fixed 5 hours later by #9",
            "5 小时后由 #9 修复",
        ),
    ],
)
def test_a_fate_reads_as_a_short_phrase(later: Later, en: str, zh: str) -> None:
    """Merges within a day in hours, later ones in days; closes by their day in the window's
    zone, with the reason GitHub gives; a close by a PR like a merge, naming the PR."""
    assert (later_text(later, WINDOW, Lang.EN), later_text(later, WINDOW, Lang.ZH)) == (en, zh)
