"""The typed results of the MCP tools: pydantic models whose JSON schemas the tools publish.

The digest's fields are those of docs/json-schema.md; text from GitHub (titles, excerpts) is
returned as is, unescaped, and is untrusted data, never an instruction.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


class WindowInfo(_Result):
    """A half-open window ``[start, end)`` in UTC, and how the report shows it."""

    start: str = Field(description="UTC, ISO-8601, e.g. 2026-03-10T03:21:00Z")
    end: str = Field(description="UTC, exclusive")
    timezone: str = Field(description="IANA zone the window is shown in")
    label: str = Field(description="the spec it came from: today, 7d, 2026-03-10, …")
    ends_now: bool
    display: str = Field(description="2026-03-10 11:21 (UTC+8) ~ 2026-03-11 11:21 (UTC+8)")


class CountsInfo(_Result):
    """The five counts of a window, by the design's counting rules."""

    new_issues: int
    closed_issues: int
    new_prs: int
    merged_prs: int
    closed_unmerged_prs: int


class SectionInfo(_Result):
    """One section of a digest (docs/json-schema.md, ``sections[]``)."""

    id: str = Field(description="summary, followups, topic:<name>, hot, trends, …, appendix")
    title: str
    writer: str = Field(description="template, or llm:<model>")
    fallback: str | None
    text: str = Field(description="the section body as GitHub-flavoured Markdown")
    blocks: list[dict[str, Any]] = Field(description="the same body, structured")
    cites: list[int] = Field(description="the item numbers the section links, in order")


class DigestResult(_Result):
    """A digest: the structured sections (all, or the requested ones) and its Markdown."""

    repo: str = Field(description="the repository (a scope's first)")
    repos: list[str] = Field(
        default_factory=list, description="a scope's repositories, when it has several"
    )
    scope: str = Field(default="", description="the configured scope's name, if one")
    repo_url: str
    display_name: str
    lang: str
    window: WindowInfo
    date: str = Field(description="the date in the report's title")
    counts: CountsInfo
    sections: list[SectionInfo]
    lists: dict[str, list[dict[str, Any]]] | None = Field(
        description="the five lists behind the counts (with the appendix section only)"
    )
    notes: list[str] = Field(description="visible degradations")
    writers: list[str]
    markdown: str = Field(description="the shown sections as the command line prints them")


class LinkedItem(_Result):
    """An issue or pull request an answer or another item links to."""

    number: int
    kind: str = Field(description="issue or pr")
    title: str
    state: str = Field(description="open, closed or merged, as the mirror knows it now")
    url: str
    repo: str = Field(default="", description="its repository, in an answer over a scope")


class AnswerResult(_Result):
    """The answer to a question and the items it links."""

    question: str
    repo: str
    repos: list[str] = Field(
        default_factory=list, description="the scope's repositories, in an answer over a scope"
    )
    scope: str = Field(default="", description="the configured scope's name, if one")
    lang: str
    topic: str | None = Field(description="the focus topic the question was read as, if any")
    window: WindowInfo = Field(description="the window the answer searched")
    writer: str
    items: list[LinkedItem] = Field(description="every item the answer links, in order")
    notes: list[str]
    markdown: str = Field(description="the answer as Markdown, every claim linked")


class ItemRow(_Result):
    """An issue or pull request active in a window, and its discussion there."""

    number: int
    kind: str = Field(description="issue or pr")
    title: str
    state: str = Field(description="open, closed or merged, as the mirror knows it now")
    labels: list[str]
    author: str
    url: str
    created_at: str
    closed_at: str | None
    merged_at: str | None
    comments: int = Field(description="comments by people (not bots) posted in the window")
    review_comments: int = Field(description="of those, inline review comments")
    participants: int = Field(description="distinct people who commented in the window")
    comments_total: int = Field(description="lifetime comment count on GitHub")
    repo: str = Field(default="", description="owner/name, in a scope of several repositories")


class ItemsResult(_Result):
    """The window's issues and pull requests that match the filters, by number (by
    repository, then number, in a scope of several)."""

    repo: str = Field(description="the repository (a scope's first)")
    repos: list[str] = Field(
        default_factory=list, description="a scope's repositories, when it has several"
    )
    window: WindowInfo
    total: int = Field(description="how many matched (items lists at most `limit` of them)")
    items: list[ItemRow]


class Remark(_Result):
    """One comment of a discussion, shortened."""

    author: str
    at: str
    kind: str = Field(description="conversation or review")
    excerpt: str
    url: str


class Discussion(_Result):
    """What people said about an item in a window."""

    comments: int
    review_comments: int
    participants: list[str] = Field(description="most active first (bots excluded)")
    first_at: str | None
    last_at: str | None
    latest: list[Remark] = Field(description="the latest few comments, oldest first")
    summary: str = Field(
        description="Markdown, as the report's hot discussions write it: the core issue, "
        "who said what, the point of contention and where it stands (empty without comments)"
    )


class ItemResult(_Result):
    """One issue or pull request, what it fixes or is fixed by, and its discussion."""

    repo: str
    item: ItemRow
    body_excerpt: str
    fixes: list[LinkedItem] = Field(description="for a PR: the issues it says it fixes")
    fixed_by: list[LinkedItem] = Field(
        description="for an issue: the PRs active in the window that say they fix it"
    )
    window: WindowInfo
    discussion: Discussion
