"""How many, in words: ``3 个 Issue`` / ``3 issues``, window lengths, the counts line."""

from __future__ import annotations

from collections.abc import Mapping

from digest.i18n.catalog import phrase, pick, t
from digest.models import Counts, Digest, Lang

# noun: (zh, en singular, en plural)
_NOUNS: Mapping[str, tuple[str, str, str]] = {
    "issue": ("{n} 个 Issue", "{n} issue", "{n} issues"),
    "pr": ("{n} 个 PR", "{n} PR", "{n} PRs"),
    "item": ("{n} 条", "{n} item", "{n} items"),
    "comment": ("{n} 条评论", "{n} comment", "{n} comments"),
    "bot_comment": ("{n} 条机器人评论", "{n} bot comment", "{n} bot comments"),
    "review_comment": (
        "{n} 条代码审查评论",
        "{n} inline review comment",
        "{n} inline review comments",
    ),
    "person": ("{n} 位", "{n} person", "{n} people"),
    "participant": ("{n} 位参与者", "{n} participant", "{n} participants"),
    "hour": ("{n} 小时", "{n} hour", "{n} hours"),
    "day": ("{n} 天", "{n} day", "{n} days"),
}
_COUNT_LABELS: Mapping[str, tuple[str, str]] = {
    "new_issues": ("新 Issue", "New issues"),
    "closed_issues": ("关闭 Issue", "Closed issues"),
    "new_prs": ("新 PR", "New PRs"),
    "merged_prs": ("合并 PR", "Merged PRs"),
    "closed_unmerged_prs": ("关闭未合并 PR", "Closed unmerged PRs"),
}


def count_of(n: int, noun: str, lang: Lang) -> str:
    """``3 个 Issue`` / ``3 issues``, ``1 person`` / ``2 people``…"""
    zh, one, many = _NOUNS[noun]
    template = pick((zh, one if n == 1 else many), lang)
    return template.replace("{n}", str(n))


def duration(days: float, lang: Lang) -> str:
    """A window length: ``24 小时`` / ``24 hours``, ``7 天`` / ``7 days``."""
    hours = round(days * 24)
    if hours % 24 == 0 and hours > 24:
        return count_of(hours // 24, "day", lang)
    return count_of(hours, "hour", lang)


def percent(value: float) -> str:
    """``83%``."""
    return f"{value:.0%}"


def count_label(key: str, lang: Lang) -> str:
    """The counts-line label of ``key`` (``新 Issue`` / ``New issues``)."""
    return pick(_COUNT_LABELS[key], lang)


def counts_line(counts: Counts, lang: Lang) -> str:
    """``新 Issue 38 | 关闭 Issue 28 | 新 PR 115 | 合并 PR 34 | 关闭未合并 PR 42``."""
    return " | ".join(f"{count_label(key, lang)} {n}" for key, n in counts.as_dict().items())


def counts_lines(digest: Digest) -> tuple[str, ...]:
    """The header's counts: one line for a repository; for a scope of several, a line per
    repository and the totals; with filters, the totals after them, each with its figure
    before them (``新 Issue 3（过滤前 5）``)."""
    lang = digest.lang
    lines = [
        t("scope.counts.repo", lang, repo=repo, counts=counts_line(counts, lang))
        for repo, counts in (digest.repo_counts if digest.several else ())
    ]
    if digest.unfiltered is None:
        total = counts_line(digest.counts, lang)
        if lines:
            total = t("scope.counts.total", lang, counts=total)
        return (*lines, total)
    before = digest.unfiltered.as_dict()
    total = " | ".join(
        t("scope.count.before", lang, count=f"{count_label(key, lang)} {n}", n=before[key])
        for key, n in digest.counts.as_dict().items()
    )
    key = "scope.counts.total_filtered" if lines else "scope.counts.filtered"
    return (*lines, t(key, lang, counts=total))


def fallbacks_text(digest: Digest) -> str:
    """The sections that fell back to the template, counted by reason: ``echo 2, language 1``."""
    return phrase("common.sep", digest.lang).join(f"{r} {n}" for r, n in digest.fallbacks.items())
