"""What analysis produces: the facts every writer turns into sections."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from digest.analysis.threads import ThreadState
from digest.models import Comment, Counts, Item, ItemKey, Later, Organisation, Topic, Window


@dataclass(frozen=True, slots=True)
class WindowData:
    """The mirror's view of one window: items touched in it and comments posted in it."""

    repo: str
    repo_url: str  # e.g. https://github.com/vllm-project/vllm
    window: Window
    items: tuple[Item, ...]  # created, closed, merged or commented on in the window
    comments: tuple[Comment, ...]  # comments created in the window
    synced_at: datetime | None = None
    # the window just before, as the mirror holds it now, when the mirror covers it
    previous: WindowData | None = None
    # the items created, closed or merged in each of the 7 windows of the same length before
    # this one, newest first, when the mirror covers them all (else empty)
    history: tuple[tuple[Item, ...], ...] = ()
    # the items merged or closed after the window closed, when the items are shown as they
    # stood at its end (``digest.analysis.fates.at_end``), by number
    later: tuple[Later, ...] = ()
    # a scope of several repositories: them, in report order (empty for one repository)
    repos: tuple[str, ...] = ()

    @property
    def several(self) -> bool:
        return len(self.repos) > 1


@dataclass(frozen=True, slots=True)
class Lists:
    """The five appendix lists, each sorted by number."""

    new_issues: tuple[Item, ...]
    closed_issues: tuple[Item, ...]
    new_prs: tuple[Item, ...]
    merged_prs: tuple[Item, ...]
    closed_unmerged_prs: tuple[Item, ...]

    def pairs(self) -> tuple[tuple[str, tuple[Item, ...]], ...]:
        """The lists by key, in report order (``LIST_KEYS``)."""
        return tuple((key, getattr(self, key)) for key in LIST_KEYS)


HISTORY_WINDOWS = 7  # the earlier windows a window's trends are compared with


LIST_KEYS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")


TOPIC_GROUPS = ("performance", "fixes", "ecosystem")  # performance & kernels / fixes / ecosystem


@dataclass(frozen=True, slots=True)
class TopicItem:
    item: Item
    score: float
    group: str  # one of TOPIC_GROUPS
    reasons: tuple[str, ...]  # e.g. ("label:rocm", "tag:[ROCm]", "keyword:MI300X")


@dataclass(frozen=True, slots=True)
class TopicMatch:
    topic: Topic
    items: tuple[TopicItem, ...]  # best first


@dataclass(frozen=True, slots=True)
class HotDiscussion:
    item: Item
    comments: tuple[Comment, ...]  # substantive human comments in the window, oldest first
    participants: tuple[str, ...]  # distinct human logins of those, most active first
    boilerplate: int = 0  # human comments of the window set aside as boilerplate
    state: ThreadState = field(default_factory=lambda: ThreadState("discussing"))

    @property
    def heat(self) -> int:
        return len(self.comments)


@dataclass(frozen=True, slots=True)
class Trend:
    term: str  # as usually written, e.g. "Qwen3.5", "MoE", "MI300X"
    kind: str  # model | feature | hardware | theme
    items: tuple[Item, ...]
    # against the previous 7 windows: "new" | "rising" | "steady"; None without history
    change: str | None = None
    baseline: float = 0.0  # the term's average items per window over those 7 windows


@dataclass(frozen=True, slots=True)
class FollowUp:
    """What happened in this window to an item of the previous window's hot discussions or
    worth-watching list."""

    item: Item  # as the mirror knows it now
    was: str  # "hot" | "watch"
    status: str  # "fixed" | "merged" | "closed" | "fix_proposed" | "discussed" | "stuck"
    by: Item | None = None  # the PR that fixes it (fixed, fix_proposed, closed)
    comments: int = 0  # human comments in this window


@dataclass(frozen=True, slots=True)
class WatchItem:
    item: Item
    reason: str  # code: "regression" | "heated" | "blocker" | "many_reports" | "unanswered" | ...


@dataclass(frozen=True, slots=True)
class Activity:
    authors: int  # distinct human authors of new items
    commenters: int  # distinct human commenters in the window
    comments: int  # human comments in the window (conversation and inline review)
    bot_comments: int
    merge_rate: float  # merged / (merged + closed unmerged), 0 when none
    open_new_prs: int  # PRs created in the window still open (review load)
    top_contributors: tuple[tuple[str, int], ...]  # (login, items authored + merged), best first
    first_time: tuple[str, ...]  # authors with author_association FIRST_TIME_CONTRIBUTOR if known
    review_comments: int = 0  # of ``comments``, the inline review comments


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every fact of one window, computed by pure functions."""

    data: WindowData
    items: tuple[Item, ...]  # the items touched in the window (``active_items``), by number
    counts: Counts
    lists: Lists
    topics: tuple[TopicMatch, ...]
    hot: tuple[HotDiscussion, ...]
    trends: tuple[Trend, ...]
    key_changes: tuple[Item, ...]
    watch: tuple[WatchItem, ...]
    activity: Activity
    followups: tuple[FollowUp, ...] = ()
    organisations: tuple[Organisation, ...] = ()  # the affiliation map
    # login -> the company of their GitHub profile, for the people the report names
    companies: Mapping[str, str] = field(default_factory=dict)
    glossary: tuple[tuple[str, str], ...] = ()  # the configuration's glossary entries
    # PR -> its siblings (two versions of one change) among ``items``
    siblings: Mapping[ItemKey, tuple[ItemKey, ...]] = field(default_factory=dict)
