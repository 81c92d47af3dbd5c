"""Turn GitHub REST rows (issues, pull requests, comments, review comments) into domain objects."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from digest.github.refs import fix_references
from digest.models import Comment, CommentKind, Item, ItemKind, ItemState

EXCERPT_CHARS = 800
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_DETAILS = re.compile(r"<details>.*?</details>", re.S | re.I)
_FENCE = re.compile(r"```.*?(```|$)", re.S)
_SPACES = re.compile(r"[ \t]+")
_BLANKS = re.compile(r"\n{3,}")


def parse_time(value: str | None) -> datetime | None:
    """An ISO-8601 GitHub timestamp as an aware datetime."""
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def is_bot(user: dict[str, Any] | None) -> bool:
    """Whether a GitHub user is a bot: ``type == "Bot"`` or a login ending in ``[bot]``."""
    if not user:
        return True
    login = str(user.get("login") or "")
    return user.get("type") == "Bot" or login.endswith("[bot]")


def excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str:
    """The readable start of a Markdown body: no HTML comments, folded logs or code blocks."""
    if not text:
        return ""
    cleaned = _HTML_COMMENT.sub("", text)
    cleaned = _DETAILS.sub(" ", cleaned)
    cleaned = _FENCE.sub(" [code] ", cleaned)
    cleaned = _SPACES.sub(" ", cleaned.replace("\r", ""))
    cleaned = _BLANKS.sub("\n\n", cleaned).strip()
    if len(cleaned) <= limit:
        return cleaned
    cut = cleaned[:limit].rsplit(" ", 1)[0]
    return cut.rstrip() + "…"


def _web_url(row: dict[str, Any], repo: str, web_url: str, number: int, is_pr: bool) -> str:
    url = row.get("html_url")
    if isinstance(url, str) and url.startswith(("https://", "http://")):
        return url
    return f"{web_url.rstrip('/')}/{repo}/{'pull' if is_pr else 'issues'}/{number}"


def item_from_api(row: dict[str, Any], repo: str, web_url: str = "https://github.com") -> Item:
    """An issue or pull request from a row of the issues (or search) API."""
    pull = row.get("pull_request")
    is_pr = isinstance(pull, dict)
    merged_at = parse_time(pull.get("merged_at")) if isinstance(pull, dict) else None
    user = row.get("user") or {}
    created = parse_time(row["created_at"])
    assert created is not None
    number = int(row["number"])
    return Item(
        repo=repo,
        number=number,
        kind=ItemKind.PR if is_pr else ItemKind.ISSUE,
        title=str(row.get("title") or ""),
        author=str(user.get("login") or "ghost"),
        author_is_bot=is_bot(user),
        labels=tuple(str(label["name"]) for label in row.get("labels") or () if label),
        state=ItemState.CLOSED if row.get("state") == "closed" else ItemState.OPEN,
        state_reason=row.get("state_reason"),
        created_at=created,
        updated_at=parse_time(row.get("updated_at")) or created,
        closed_at=parse_time(row.get("closed_at")),
        merged_at=merged_at,
        url=_web_url(row, repo, web_url, number, is_pr),
        body_excerpt=excerpt(row.get("body")),
        comments_total=int(row.get("comments") or 0),
        draft=bool(row.get("draft")),
        author_association=str(row.get("author_association") or ""),
        fixes=fix_references(f"{row.get('title') or ''}\n{row.get('body') or ''}", repo, number)
        if is_pr
        else (),
    )


def _issue_number(row: dict[str, Any]) -> int:
    if "issue_number" in row:
        return int(row["issue_number"])
    issue_url = str(row.get("issue_url") or "")
    return int(issue_url.rstrip("/").rsplit("/", 1)[-1])


def _comment(
    row: dict[str, Any], repo: str, number: int, fallback_url: str, **kind: Any
) -> Comment:
    """A comment of either stream: author (``ghost`` when deleted), excerpt, times, link."""
    user = row.get("user") or {}
    created = parse_time(row["created_at"])
    assert created is not None
    url = row.get("html_url")
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        url = fallback_url
    return Comment(
        repo=repo,
        id=int(row["id"]),
        item_number=number,
        author=str(user.get("login") or "ghost"),
        author_is_bot=is_bot(user),
        body_excerpt=excerpt(row.get("body"), 600),
        created_at=created,
        updated_at=parse_time(row.get("updated_at")) or created,
        url=url,
        author_association=str(row.get("author_association") or ""),
        **kind,
    )


def comment_from_api(
    row: dict[str, Any], repo: str, web_url: str = "https://github.com"
) -> Comment:
    """A conversation comment from a row of the repository comments API."""
    number = _issue_number(row)
    link = f"{web_url.rstrip('/')}/{repo}/issues/{number}#issuecomment-{row['id']}"
    return _comment(row, repo, number, link)


def _pull_number(row: dict[str, Any]) -> int:
    pull_url = str(row.get("pull_request_url") or "")
    return int(pull_url.rstrip("/").rsplit("/", 1)[-1])


def review_comment_from_api(
    row: dict[str, Any], repo: str, web_url: str = "https://github.com"
) -> Comment:
    """An inline review comment from a row of the repository review-comments API
    (``/pulls/comments``): its PR comes from ``pull_request_url``; ``user`` may be null (a
    deleted account, shown as ``ghost``)."""
    number = _pull_number(row)
    link = f"{web_url.rstrip('/')}/{repo}/pull/{number}#discussion_r{row['id']}"
    reply = row.get("in_reply_to_id")
    return _comment(
        row,
        repo,
        number,
        link,
        kind=CommentKind.REVIEW,
        path=str(row.get("path") or ""),
        in_reply_to_id=int(reply) if reply is not None else None,
    )
