"""The frozen domain model shared by the core and every front end."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

SCHEMA_VERSION = 1


class Lang(StrEnum):
    """The language of a report or an answer. A string in JSON, the cache and the codec."""

    ZH = "zh"
    EN = "en"

    @classmethod
    def parse(cls, text: str | None) -> Lang | None:
        """The language ``text`` names, in any case (``zh``, ``EN``); None for anything else."""
        try:
            return cls(text.lower()) if text else None
        except ValueError:
            return None


class ItemKind(StrEnum):
    """An issue or a pull request."""

    ISSUE = "issue"
    PR = "pr"


class CommentKind(StrEnum):
    """A conversation comment (``/issues/comments``) or an inline review comment
    (``/pulls/comments``)."""

    CONVERSATION = "conversation"
    REVIEW = "review"


class ItemState(StrEnum):
    """The state of an item as known when the digest is built."""

    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True, order=True)
class ItemKey:
    """An item's identity across repositories: its repository (``owner/name``, as the mirror
    spells it) and its number."""

    repo: str
    number: int

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}"


@dataclass(frozen=True, slots=True)
class Item:
    """One issue or pull request, as mirrored from GitHub."""

    repo: str
    number: int
    kind: ItemKind
    title: str
    author: str
    author_is_bot: bool
    labels: tuple[str, ...]
    state: ItemState
    state_reason: str | None
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None
    merged_at: datetime | None
    url: str
    body_excerpt: str = ""
    comments_total: int = 0
    draft: bool = False
    author_association: str = ""
    fixes: tuple[int, ...] = ()  # a PR's "Fixes #N" references to issues of its repository

    @property
    def key(self) -> ItemKey:
        return ItemKey(self.repo, self.number)

    @property
    def is_pr(self) -> bool:
        return self.kind is ItemKind.PR

    @property
    def is_merged(self) -> bool:
        return self.merged_at is not None


@dataclass(frozen=True, slots=True)
class Comment:
    """One comment on an issue or pull request: a conversation comment, or an inline review
    comment on a file of a pull request (``path``; ``in_reply_to_id`` when it answers another
    review comment). Ids are unique per kind only."""

    repo: str
    id: int
    item_number: int
    author: str
    author_is_bot: bool
    body_excerpt: str
    created_at: datetime
    updated_at: datetime
    url: str
    kind: CommentKind = CommentKind.CONVERSATION
    path: str = ""
    in_reply_to_id: int | None = None
    author_association: str = ""  # OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...

    @property
    def item_key(self) -> ItemKey:
        """The key of the item this comment was posted on."""
        return ItemKey(self.repo, self.item_number)

    @property
    def is_review(self) -> bool:
        return self.kind is CommentKind.REVIEW


@dataclass(frozen=True, slots=True)
class Window:
    """A half-open time window ``[start, end)`` in UTC, shown in ``timezone``."""

    start: datetime
    end: datetime
    timezone: str = "UTC"
    label: str = ""
    ends_now: bool = False

    def __post_init__(self) -> None:
        if self.start.tzinfo is None or self.end.tzinfo is None:
            raise ValueError("window bounds must be timezone-aware")
        if self.end <= self.start:
            raise ValueError("window end must be after its start")

    def contains(self, moment: datetime | None) -> bool:
        """Whether ``moment`` falls in ``[start, end)``."""
        return moment is not None and self.start <= moment < self.end

    @property
    def days(self) -> float:
        return (self.end - self.start).total_seconds() / 86400


@dataclass(frozen=True, slots=True)
class Counts:
    """The five exact counts of a window."""

    new_issues: int
    closed_issues: int
    new_prs: int
    merged_prs: int
    closed_unmerged_prs: int

    def as_dict(self) -> dict[str, int]:
        return {
            "new_issues": self.new_issues,
            "closed_issues": self.closed_issues,
            "new_prs": self.new_prs,
            "merged_prs": self.merged_prs,
            "closed_unmerged_prs": self.closed_unmerged_prs,
        }


@dataclass(frozen=True, slots=True)
class Topic:
    """A focus topic: how items are recognised as belonging to it."""

    name: str
    title_en: str
    title_zh: str
    labels: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    synonyms: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()  # phrases, as written, that are no evidence ("AMD EPYC")
    organisation: str = ""  # the organisation behind the topic (an ``Organisation`` name)


@dataclass(frozen=True, slots=True)
class Organisation:
    """Who works for an organisation, as far as logins and profiles tell: suffixes (``-amd``),
    prefixes (``amd-``) and listed logins, all case-insensitive; and the names a GitHub
    profile's ``company`` field gives it (its own name always, ``"@AMD"`` as ``AMD``)."""

    name: str
    suffixes: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    logins: tuple[str, ...] = ()
    companies: tuple[str, ...] = ()  # more names the ``company`` field may carry

    def has(self, login: str) -> bool:
        """Whether ``login`` belongs to this organisation."""
        low = login.lower()
        return (
            low in {name.lower() for name in self.logins}
            or any(low.endswith(s.lower()) for s in self.suffixes)
            or any(low.startswith(p.lower()) for p in self.prefixes)
        )

    def employs(self, company: str) -> bool:
        """Whether a profile's ``company`` (``"AMD"``, ``"@AMD"``, ``"AMD, Inc."``) names this
        organisation: one of its names, as whole words."""
        said = f" {_company_words(company)} "
        return any(
            f" {name} " in said for name in map(_company_words, (self.name, *self.companies))
        )


def _company_words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


# Rich text: sections are built from blocks of inline spans, so each renderer can escape
# untrusted text and render references as links for its own platform.


@dataclass(frozen=True, slots=True)
class Text:
    """Plain text, possibly from GitHub (untrusted): renderers always escape it."""

    text: str
    # plain | bold | italic | code | original (the words of a comment the line summarises,
    # GitHub's own: collapsed on the site, a short quoted tail in chat)
    style: str = "plain"


@dataclass(frozen=True, slots=True)
class ItemRef:
    """A linked reference to an item of the window."""

    number: int
    url: str
    title: str = ""  # when set, renderers show "#N title" as the link
    repo: str = ""  # set in a scope of several repositories: renders "owner/name#N"

    @property
    def label(self) -> str:
        """``#N``, or ``owner/name#N`` when the reference names its repository."""
        return f"{self.repo}#{self.number}"


@dataclass(frozen=True, slots=True)
class UserRef:
    """A linked reference to a GitHub user, with the role the user plays where the report names
    them (``maintainer``, ``reporter``, ``author``, ``reviewer``, ``community``; "" when not
    said) and their organisation when known."""

    login: str
    url: str
    role: str = ""
    affiliation: str = ""


@dataclass(frozen=True, slots=True)
class Link:
    """A link to a page of the project's own (the report website), made from configuration,
    never from GitHub text; ``text`` is the label (the URL itself when empty)."""

    url: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Pointer:
    """Something the reader can ask for next; each front end writes it in its own syntax.

    The digest of ``window`` (of ``topic`` if given), or the question ``question``; ``repo`` is
    ``None`` for the default repository.
    """

    window: Window | None = None
    topic: str | None = None
    repo: str | None = None
    question: str | None = None


Inline = Text | ItemRef | UserRef | Link | Pointer


@dataclass(frozen=True, slots=True)
class Paragraph:
    spans: tuple[Inline, ...]


@dataclass(frozen=True, slots=True)
class Subheading:
    text: str


@dataclass(frozen=True, slots=True)
class BulletList:
    items: tuple[tuple[Inline, ...], ...]


Block = Paragraph | Subheading | BulletList


@dataclass(frozen=True, slots=True)
class Section:
    """One section of a digest and the writer that wrote it."""

    id: str  # summary | topic:<name> | hot | trends | key_changes | activity | watch | appendix
    title: str
    blocks: tuple[Block, ...]
    writer: str = "template"  # "template" or "llm:<model>"
    fallback: str = ""  # why a model-written section fell back to the template (its reason)

    @property
    def cites(self) -> tuple[int, ...]:
        """The numbers of the items this section links, in order of first appearance."""
        return cited_numbers(self.blocks)


def iter_spans(blocks: tuple[Block, ...]) -> list[Inline]:
    """Every inline span of ``blocks``, in reading order."""
    out: list[Inline] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            out.extend(block.spans)
        elif isinstance(block, BulletList):
            for entry in block.items:
                out.extend(entry)
    return out


def map_spans(
    blocks: Iterable[Block], change: Callable[[tuple[Inline, ...]], tuple[Inline, ...]]
) -> tuple[Block, ...]:
    """``blocks`` with ``change`` applied to each paragraph's and each list entry's spans, in
    reading order (headings as they are)."""
    out: list[Block] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            out.append(Paragraph(change(block.spans)))
        elif isinstance(block, BulletList):
            out.append(BulletList(tuple(change(entry) for entry in block.items)))
        else:
            out.append(block)
    return tuple(out)


def cited_numbers(blocks: tuple[Block, ...]) -> tuple[int, ...]:
    """The numbers of the items ``blocks`` link, in order of first appearance."""
    return tuple(dict.fromkeys(s.number for s in iter_spans(blocks) if isinstance(s, ItemRef)))


@dataclass(frozen=True, slots=True)
class Later:
    """What became of an item after its digest's window closed: ``merged`` or ``closed`` (for
    a closed issue, its ``reason``: ``completed``, ``not_planned``, ``duplicate``) at ``at``;
    for an issue closed by a merged PR of its repository, ``by`` that PR's number."""

    number: int
    event: str  # "merged" | "closed"
    at: datetime
    reason: str | None = None
    is_pr: bool = False
    repo: str = ""  # set in a scope of several repositories, as on its ``ItemRef``
    by: int | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens used by a model-written digest."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class Digest:
    """A complete report of one repository over one window."""

    repo: str
    window: Window
    lang: Lang
    counts: Counts
    sections: tuple[Section, ...]
    generated_at: datetime
    synced_at: datetime | None
    repo_url: str
    display_name: str = ""
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()  # visible degradations ("hot discussions unavailable: ...")
    schema_version: int = SCHEMA_VERSION
    # the appendix lists by key (new_issues, closed_issues, new_prs, merged_prs,
    # closed_unmerged_prs), each sorted by number; empty when the builder did not attach them
    lists: tuple[tuple[str, tuple[Item, ...]], ...] = ()
    # the items the digest shows that were merged or closed after the window closed (they are
    # shown as they stood at its end, with this fate as a note), by number
    later: tuple[Later, ...] = ()
    # built from a sync the rate limit stopped: a daily post of it is corrected once complete
    behind: bool = False
    # a scope's digest: its name ("" when not named), its repositories when several (in
    # report order; empty for one), each one's counts, and the counts before its filters
    # (None when it has none); ``counts`` are then the totals after the filters
    scope: str = ""
    repos: tuple[str, ...] = ()
    repo_counts: tuple[tuple[str, Counts], ...] = ()
    unfiltered: Counts | None = None

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)

    @property
    def several(self) -> bool:
        """Whether the digest covers several repositories (its items then name theirs)."""
        return len(self.repos) > 1

    @property
    def sources(self) -> tuple[tuple[str, str], ...]:
        """Each repository the digest covers, with its page: ``(owner/name, url)``."""
        if not self.several:
            return ((self.repo, self.repo_url),)
        base = self.repo_url.removesuffix(self.repo)
        return tuple((repo, f"{base}{repo}") for repo in self.repos)

    def ref_repo(self, item: Item) -> str:
        """The repository an ``ItemRef`` or ``Later`` of ``item`` names: "" in one repository."""
        return item.repo if self.several else ""

    @property
    def shown_name(self) -> str:
        """The repository as the report names it: its display name, else ``name`` of owner/name."""
        return self.display_name or self.repo.split("/", 1)[-1]

    @property
    def writers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.writer for s in self.sections))

    @property
    def fallbacks(self) -> dict[str, int]:
        """How many sections fell back to the template, by reason, most frequent first."""
        counted: dict[str, int] = {}
        for section in self.sections:
            if section.fallback:
                counted[section.fallback] = counted.get(section.fallback, 0) + 1
        return dict(sorted(counted.items(), key=lambda pair: -pair[1]))


@dataclass(frozen=True, slots=True)
class Answer:
    """A short, linked answer to a question about a repository."""

    repo: str
    question: str
    window: Window
    lang: Lang
    blocks: tuple[Block, ...]
    repo_url: str
    topic: str | None = None
    writer: str = "template"
    notes: tuple[str, ...] = ()

    @property
    def cites(self) -> tuple[int, ...]:
        return cited_numbers(self.blocks)
