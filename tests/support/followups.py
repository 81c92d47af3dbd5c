"""Two consecutive windows: yesterday's hot issues and watched regression, and today's news."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from digest.analysis.analyze import analyze
from digest.analysis.types import Analysis, WindowData
from digest.models import Digest, ItemState, Window
from digest.writers.template import TemplateWriter
from tests.support.analysis_sample import REPO, REPO_URL, START, make_comment, make_item

YESTERDAY = Window(START - timedelta(days=1), START, "Asia/Shanghai", "yesterday")
TODAY = Window(START, START + timedelta(days=1), "Asia/Shanghai", "today")
HOT_FIXED, HOT_STUCK, WATCHED, FIX = 101, 102, 103, 201


def two_days() -> WindowData:
    """Today's data carrying yesterday's: #101 was hot and is fixed by #201 (merged today),
    #102 was hot and nobody touched it since, #103 was a watched regression discussed today."""
    before = START - timedelta(hours=20)
    fixed = make_item(HOT_FIXED, "[Bug]: crash in the scheduler", created=before, labels=("bug",))
    fixed = replace(fixed, state=ItemState.CLOSED, closed_at=START + timedelta(hours=5))
    stuck = make_item(HOT_STUCK, "[Feature]: a gRPC frontend", created=before)
    watched = make_item(103, "[Bug]: throughput regression on H100", created=before)
    fix = replace(
        make_item(
            FIX, "[Bugfix] Fix the scheduler crash", pr=True, merged=START + timedelta(hours=5)
        ),
        fixes=(HOT_FIXED,),
    )
    old_talk = tuple(
        make_comment(n, number, who, at=before + timedelta(hours=1 + n % 5))
        for n, (number, who) in enumerate(
            [(HOT_FIXED, p) for p in ("ann", "bob", "cat", "ann")]
            + [(HOT_STUCK, p) for p in ("dan", "eve", "dan")]
        )
    )
    previous = WindowData(REPO, REPO_URL, YESTERDAY, (fixed, stuck, watched), old_talk)
    today_talk = (make_comment(50, WATCHED, "fay"), make_comment(51, WATCHED, "gus"))
    return WindowData(
        REPO, REPO_URL, TODAY, (fixed, watched, fix), today_talk, TODAY.end, previous=previous
    )


def followup_analysis() -> Analysis:
    return analyze(two_days(), ())


def followup_digest(lang: str) -> Digest:
    """The template digest of today, with its follow-ups section."""
    analysis = followup_analysis()
    return Digest(
        repo=REPO,
        window=TODAY,
        lang=lang,
        counts=analysis.counts,
        sections=TemplateWriter().sections(analysis, lang),
        generated_at=TODAY.end,
        synced_at=TODAY.end,
        repo_url=REPO_URL,
        lists=analysis.lists.pairs(),
    )
