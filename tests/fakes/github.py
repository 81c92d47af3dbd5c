"""A fake GitHub REST API on 127.0.0.1 (real HTTP, aiohttp), serving issue and comment rows.

Usage::

    async with FakeGitHub(clock=lambda: now) as gh:
        repo = gh.add_repo("vllm-project/vllm", issues=rows, comments=rows)
        async with httpx.AsyncClient(base_url=gh.url) as http:
            ...
        gh.requests               # every request: method, path, query, headers (no Authorization)
        repo.put_issue(row)       # change the data between requests (new ETags follow)

Served: ``GET /repos/{o}/{r}`` (the repository, its ``private`` flag and ``visibility`` as
``add_repo(..., private=True)`` sets them), ``/repos/{o}/{r}/issues/{n}``,
``/repos/{o}/{r}/issues`` (state, since, sort, direction, per_page, page),
``/repos/{o}/{r}/issues/comments`` and ``/repos/{o}/{r}/pulls/comments`` (inline review
comments; since, sort, direction, per_page, page) and
``/search/issues`` (``repo:``, ``is:issue|pr``, ``created:``/``closed:``/``merged:``/``updated:``
ranges; sort=created; 1,000 results at most), with ``Link`` pagination, weak ETags and 304s,
``X-RateLimit-*`` headers (core: 60 an hour without a token, 5,000 with one; search: 10 or 30 a
minute; a 304 costs nothing), 404 for unknown repositories and 422 for unsearchable ones.

GitHub's edges: ``rename(old, new)`` (every ``/repos/old/...`` answers 301 to
``/repositories/{id}/...``, query kept, which serves the repository; search refuses the old
name with 422), ``repo.transfer(number, to, new_number)`` (the issue leaves the listings and
``/issues/{n}`` answers 301 to its new home), ``repo.delete(number)`` (gone from the listings,
``/issues/{n}`` answers 410), ``repo.edit(number, at, **fields)`` (a change that moves
``updated_at``, as every edit does on GitHub); draft PRs are rows with ``"draft": true``.

Faults, by 1-based request number: ``fail_every = N`` (a 502 on every Nth request),
``secondary_at = {K}`` (403 + ``Retry-After`` + GitHub's secondary-limit message), ``stall_at``
(answer after ``stall_seconds``, to trip client timeouts), ``exhaust_from = K`` or
``exhaust()`` (the primary limit at 0 from request K, or from now on); ``refuse_search``
(every search answers 422). ``before_request`` is called with each request before it is
answered (to change the data mid-stream).

Helpers: ``RecordingSleep`` (an injectable sleep that records delays and returns at once) and
``refused_url()`` (a local URL where connections are refused).
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import json
import math
import re
import socket
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web
from yarl import URL

from tests.support.clock import Clock

Row = dict[str, Any]

SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID."
)
PRIMARY_MESSAGE = (
    "API rate limit exceeded for 127.0.0.1. (But here's the good news: "
    "Authenticated requests get a higher rate limit.)"
)
DOCS = "https://docs.github.com/rest"
LIMITS = {("core", False): 60, ("core", True): 5000, ("search", False): 10, ("search", True): 30}
PERIODS = {"core": 3600, "search": 60}
_TIME_FIELDS = ("created_at", "updated_at", "closed_at")
_CANONICAL = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_REPO_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)(/issues(/comments)?|/pulls/comments)?/?$")
_ISSUE_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)/issues/(\d+)/?$")


def github_time(moment: datetime) -> str:
    """``2026-03-10T03:21:00Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _canonical(value: str | None) -> str | None:
    if value is None or _CANONICAL.match(value):
        return value
    return github_time(datetime.fromisoformat(value.replace("Z", "+00:00")))


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the fake saw it (the Authorization header is never kept)."""

    number: int
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    authenticated: bool
    status: int = 0


@dataclass
class FakeRepo:
    """The rows of one repository; change them at will between requests."""

    name: str
    issues: dict[int, Row] = field(default_factory=dict)
    comments: dict[int, Row] = field(default_factory=dict)
    review_comments: dict[int, Row] = field(default_factory=dict)
    moved: dict[int, str] = field(default_factory=dict)  # number -> API path of its new home
    deleted: set[int] = field(default_factory=set)
    private: bool = False  # GET /repos/{o}/{r} says so ("private", "visibility")
    version: int = 0  # bumped by every put; listings are cached per version
    id: int | None = None  # set by a rename, which keeps it (see ``_repo_id``)
    pushed_at: datetime | None = None  # None: its latest issue update stands for it

    def put_issue(self, row: Row) -> None:
        """Add or replace an issue or PR row (times normalised to GitHub's format)."""
        clean = dict(row)
        for key in _TIME_FIELDS:
            clean[key] = _canonical(clean.get(key))
        pull = clean.get("pull_request")
        if isinstance(pull, dict):
            clean["pull_request"] = {**pull, "merged_at": _canonical(pull.get("merged_at"))}
        self.issues[int(clean["number"])] = clean
        self.version += 1

    def put_comment(self, row: Row) -> None:
        clean = dict(row)
        for key in ("created_at", "updated_at"):
            clean[key] = _canonical(clean.get(key))
        self.comments[int(clean["id"])] = clean
        self.version += 1

    def edit(self, number: int, at: datetime, **changes: Any) -> None:
        """Change fields of an item at ``at``; its ``updated_at`` moves there."""
        self.put_issue({**self.issues[number], **changes, "updated_at": github_time(at)})

    def transfer(self, number: int, to: str, new_number: int) -> None:
        """Move an issue to repository ``to``: it leaves this repository's listings."""
        self.issues.pop(number)
        self.moved[number] = f"/repos/{to}/issues/{new_number}"
        self.version += 1

    def delete(self, number: int) -> None:
        """Delete an issue (GitHub answers 410 for it from now on), and its comments."""
        self.issues.pop(number, None)
        self.deleted.add(number)
        self.comments = {
            k: c for k, c in self.comments.items() if not str(c["issue_url"]).endswith(f"/{number}")
        }
        self.version += 1

    def put_review_comment(self, row: Row) -> None:
        """Add or replace an inline review comment; as on GitHub, its PR's ``updated_at``
        moves to the comment's when that is later."""
        clean = dict(row)
        for key in ("created_at", "updated_at"):
            clean[key] = _canonical(clean.get(key))
        self.review_comments[int(clean["id"])] = clean
        number = int(str(clean["pull_request_url"]).rstrip("/").rsplit("/", 1)[-1])
        pull = self.issues.get(number)
        if pull is not None and (pull.get("updated_at") or "") < clean["updated_at"]:
            self.issues[number] = {**pull, "updated_at": clean["updated_at"]}
        self.version += 1


@dataclass
class _Bucket:
    limit: int
    remaining: int
    reset: int


class FakeGitHub:
    """The fake server; use as ``async with FakeGitHub() as gh`` inside a test."""

    def __init__(self, *, clock: Callable[[], datetime] | None = None) -> None:
        self._clock = clock or (lambda: datetime.now(UTC))
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[RecordedRequest] = []
        self.fail_every: int | None = None
        self.secondary_at: set[int] = set()
        self.retry_after = 2
        self.stall_at: set[int] = set()
        self.stall_seconds = 1.0
        self.incomplete_search = False
        self.limits = dict(LIMITS)  # the hourly (core) and per-minute (search) limits
        self.refuse_search = False  # every search answers 422, as for a query GitHub refuses
        self.exhaust_from: int | None = None
        self.before_request: Callable[[RecordedRequest], None] | None = None
        self._exhausted: set[str] = set()  # resources whose next new bucket starts empty
        self._left: dict[str, int] = {}  # resources whose next new bucket starts this low
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self._listings: dict[
            tuple[str, str, tuple[tuple[str, str], ...]], tuple[int, list[Row], list[str]]
        ] = {}
        self._runner: web.AppRunner | None = None
        self.url = ""
        self.renamed: dict[str, str] = {}  # old lower-case name -> new name
        self.users: dict[str, Row] = {}  # lower-case login -> profile (``GET /users/{login}``)
        # owners that are users, not organisations: ``/orgs/{owner}/repos`` answers 404
        self.user_owners: set[str] = set()

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeGitHub:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- data and faults ------------------------------------------------------------------

    def add_repo(
        self,
        name: str,
        issues: Iterable[Row] = (),
        comments: Iterable[Row] = (),
        review_comments: Iterable[Row] = (),
        *,
        private: bool = False,
    ) -> FakeRepo:
        repo = FakeRepo(name, private=private)
        for row in issues:
            repo.put_issue(row)
        for row in comments:
            repo.put_comment(row)
        for row in review_comments:
            repo.put_review_comment(row)
        self.repos[name.lower()] = repo
        return repo

    def repo(self, name: str) -> FakeRepo:
        return self.repos[name.lower()]

    def rename(self, old: str, new: str) -> FakeRepo:
        """Rename a repository: its old name answers 301 to ``/repositories/{id}/...`` from now
        on (GitHub's shape) and the Search API refuses it (422), as on GitHub."""
        repo = self.repos.pop(old.lower())
        repo.id = _repo_id(repo)
        repo.name = new
        self.repos[new.lower()] = repo
        self.renamed[old.lower()] = new
        return repo

    def exhaust(self, resource: str = "core") -> None:
        """Exhaust the primary rate limit of ``resource`` for every caller until it resets."""
        self._exhausted.add(resource)
        for (res, _), bucket in self._buckets.items():
            if res == resource:
                bucket.remaining = 0

    def leave(self, remaining: int, resource: str = "core") -> None:
        """Leave only ``remaining`` requests of the limit of ``resource`` for every caller
        until it resets (as if others had spent the rest)."""
        self._left[resource] = remaining
        for (res, _), bucket in self._buckets.items():
            if res == resource:
                bucket.remaining = min(bucket.remaining, remaining)

    # -- request handling -----------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        number = len(self.requests) + 1
        authenticated = request.headers.get("Authorization", "").startswith(("Bearer ", "token "))
        record = RecordedRequest(
            number=number,
            method=request.method,
            path=request.path,
            query=dict(request.query),
            headers={
                k.lower(): v for k, v in request.headers.items() if k.lower() != "authorization"
            },
            authenticated=authenticated,
        )
        self.requests.append(record)
        if self.before_request is not None:
            self.before_request(record)
        response = await self._respond(request, number, authenticated)
        self.requests[number - 1] = replace(record, status=response.status)
        return response

    async def _respond(
        self, request: web.Request, number: int, authenticated: bool
    ) -> web.StreamResponse:
        if number in self.stall_at:
            await asyncio.sleep(self.stall_seconds)
        resource = "search" if request.path.startswith("/search/") else "core"
        bucket = self._bucket(resource, request.headers.get("Authorization", ""), authenticated)
        if self.exhaust_from is not None and number >= self.exhaust_from:
            self.exhaust(resource)
            bucket.remaining = 0
        if number in self.secondary_at:
            return self._error(
                403, SECONDARY_MESSAGE, bucket, resource, {"Retry-After": str(self.retry_after)}
            )
        if self.fail_every and number % self.fail_every == 0:
            return web.Response(
                status=502, text="<html>502 Bad Gateway</html>", content_type="text/html"
            )
        if bucket.remaining <= 0:
            return self._error(403, PRIMARY_MESSAGE, bucket, resource)
        if request.method != "GET":
            return self._error(404, "Not Found", bucket, resource)
        status, body, extra = self._route(request)
        if status in (301, 302, 307):
            bucket.remaining -= 1
            return self._error(status, "Moved Permanently", bucket, resource, extra, body)
        if status != 200:
            bucket.remaining -= 1
            return self._error(status, body["message"], bucket, resource, extra, body)
        payload = json.dumps(body, separators=(",", ":")).encode()
        etag = 'W/"' + hashlib.sha256(payload).hexdigest()[:40] + '"'
        if _etag_matches(request.headers.get("If-None-Match"), etag):
            headers = {**self._rate_headers(bucket, resource), "ETag": etag, **extra}
            return web.Response(status=304, headers=headers)
        bucket.remaining -= 1
        headers = {**self._rate_headers(bucket, resource), "ETag": etag, **extra}
        return web.Response(body=payload, headers=headers, content_type="application/json")

    def _route(self, request: web.Request) -> tuple[int, Any, dict[str, str]]:
        if request.path == "/search/issues":
            return self._search(request)
        parts = request.path.split("/")
        if len(parts) == 4 and parts[1] in ("orgs", "users") and parts[3] == "repos":
            return self._owner_repos(request, parts[2], user=parts[1] == "users")
        if len(parts) == 3 and parts[1] == "users":
            profile = self.users.get(parts[2].lower())
            return (200, profile, {}) if profile else (404, {"message": "Not Found"}, {})
        if len(parts) > 2 and parts[1] == "repositories":  # where a renamed repository's 301 points
            found = next((r for r in self.repos.values() if str(_repo_id(r)) == parts[2]), None)
            if found is None:
                return 404, {"message": "Not Found"}, {}
            path = "/".join(["", "repos", found.name, *parts[3:]])
            return self._route(request.clone(rel_url=request.rel_url.with_path(path)))
        if len(parts) > 3 and parts[1] == "repos":
            new = self.renamed.get(f"{parts[2]}/{parts[3]}".lower())
            if new is not None:  # GitHub's shape: the repository's id, not its new name
                path = "/".join(
                    ["", "repositories", str(_repo_id(self.repos[new.lower()])), *parts[4:]]
                )
                target = request.url.with_path(path).with_query(request.query)
                return (
                    301,
                    {"message": "Moved Permanently", "url": str(target)},
                    {"Location": str(target)},
                )
        if one := _ISSUE_PATH.match(request.path):
            found = self.repos.get(f"{one[1]}/{one[2]}".lower())
            number = int(one[3])
            if found is not None and number in found.moved:
                target = str(request.url.with_path(found.moved[number]).with_query(None))
                return 301, {"message": "Moved Permanently", "url": target}, {"Location": target}
            if found is not None and number in found.deleted:
                return 410, {"message": "This issue was deleted"}, {}
            row = found.issues.get(number) if found else None
            return (200, row, {}) if row else (404, {"message": "Not Found"}, {})
        match = _REPO_PATH.match(request.path)
        if not match:
            return 404, {"message": "Not Found"}, {}
        repo = self.repos.get(f"{match[1]}/{match[2]}".lower())
        if repo is None:
            return 404, {"message": "Not Found"}, {}
        if match[3] == "/pulls/comments":
            return self._list_review_comments(request, repo)
        if match[4]:
            return self._list_comments(request, repo)
        if match[3]:
            return self._list_issues(request, repo)
        return 200, _repo_json(repo), {}

    @property
    def data_requests(self) -> list[RecordedRequest]:
        """The requests made for the repository's data: all but profiles (``/users/``)."""
        return [r for r in self.requests if not r.path.startswith("/users/")]

    def put_user(self, login: str, company: str | None = None, **fields: Any) -> None:
        """A profile ``GET /users/{login}`` answers, with GitHub's ``company`` field."""
        self.users[login.lower()] = {"login": login, "type": "User", "company": company, **fields}

    def _listing(
        self,
        request: web.Request,
        repo: FakeRepo,
        build: Callable[[Mapping[str, str]], list[Row]],
    ) -> list[Row]:
        """The full, filtered and sorted listing of a query, computed once per data version.

        A ``since`` query sorted by ascending ``updated_at`` (the sync's) is cut from the
        listing without ``since``, kept once per data version, so a long backfill does not
        sort the whole repository on every page."""
        query = dict(request.query)
        query.pop("page", None)
        ordered = query.get("sort") == "updated" and query.get("direction") == "asc"
        since = _canonical(query.pop("since", None)) if ordered else None
        if since is None:
            return self._built(repo, request.path, query, build)[0]
        rows, stamps = self._built(repo, request.path, query, build)
        return rows[bisect.bisect_left(stamps, since) :]

    def _built(
        self,
        repo: FakeRepo,
        path: str,
        query: Mapping[str, str],
        build: Callable[[Mapping[str, str]], list[Row]],
    ) -> tuple[list[Row], list[str]]:
        key = (repo.name, path, tuple(sorted(query.items())))
        cached = self._listings.get(key)
        if cached is None or cached[0] != repo.version:
            rows = build(query)
            cached = self._listings[key] = (repo.version, rows, [r["updated_at"] for r in rows])
        return cached[1], cached[2]

    def _list_issues(self, request: web.Request, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        return self._paged(request, self._listing(request, repo, lambda q: _issues(q, repo)))

    def _list_comments(
        self, request: web.Request, repo: FakeRepo
    ) -> tuple[int, Any, dict[str, str]]:
        return self._paged(request, self._listing(request, repo, lambda q: _comments(q, repo)))

    def _list_review_comments(
        self, request: web.Request, repo: FakeRepo
    ) -> tuple[int, Any, dict[str, str]]:
        rows = self._listing(
            request, repo, lambda q: _comments(q, repo, repo.review_comments.values())
        )
        return self._paged(request, rows)

    def _owner_repos(
        self, request: web.Request, owner: str, *, user: bool
    ) -> tuple[int, Any, dict[str, str]]:
        """An owner's repositories (GitHub's shape), most recently pushed first: 404 for an
        owner with none, or an organisation asked for as a user and the other way round."""
        found = [r for r in self.repos.values() if r.name.split("/")[0].lower() == owner.lower()]
        if not found or (owner.lower() in self.user_owners) != user:
            return 404, {"message": "Not Found"}, {}
        rows = sorted((_repo_json(r) for r in found), key=lambda r: r["pushed_at"] or "")
        if request.query.get("direction", "desc") == "desc":
            rows.reverse()
        return self._paged(request, rows)

    def _paged(
        self, request: web.Request, rows: list[Row], *, cap: int | None = None
    ) -> tuple[int, Any, dict[str, str]]:
        per_page = max(1, min(100, int(request.query.get("per_page", "30"))))
        page = max(1, int(request.query.get("page", "1")))
        reachable = len(rows) if cap is None else min(len(rows), cap)
        last = max(1, math.ceil(reachable / per_page))
        chunk = rows[(page - 1) * per_page : page * per_page]
        links = []
        if page < last:
            links.append(f'<{_with_page(request.url, page + 1)}>; rel="next"')
            links.append(f'<{_with_page(request.url, last)}>; rel="last"')
        if page > 1:
            links.append(f'<{_with_page(request.url, page - 1)}>; rel="prev"')
            links.append(f'<{_with_page(request.url, 1)}>; rel="first"')
        headers = {"Link": ", ".join(links)} if links else {}
        return 200, chunk, headers

    def _search(self, request: web.Request) -> tuple[int, Any, dict[str, str]]:
        try:
            parsed = _parse_query(request.query.get("q", ""))
        except ValueError as exc:
            return 422, {"message": "Validation Failed", "errors": [{"message": str(exc)}]}, {}
        repo_name, kind, ranges = parsed
        if self.refuse_search:
            return 422, {"message": "Validation Failed", "errors": [{"code": "invalid"}]}, {}
        repo = self.repos.get(repo_name.lower()) if repo_name else None
        if repo is None:
            message = (
                "The listed users and repositories cannot be searched either because the "
                "resources do not exist or you do not have permission to view them."
            )
            return 422, {"message": "Validation Failed", "errors": [{"message": message}]}, {}
        rows = []
        for row in repo.issues.values():
            is_pr = isinstance(row.get("pull_request"), dict)
            if is_pr != (kind == "pr") and kind is not None:
                continue
            if all(_in_range(_field(row, name), lo, hi) for name, lo, hi in ranges):
                rows.append(row)
        if request.query.get("sort") == "created":
            descending = request.query.get("order", "desc") != "asc"
            rows.sort(key=lambda r: (r["created_at"], r["number"]), reverse=descending)
        else:
            rows.sort(key=lambda r: r["number"], reverse=True)
        per_page = max(1, min(100, int(request.query.get("per_page", "30"))))
        page = max(1, int(request.query.get("page", "1")))
        if (page - 1) * per_page >= 1000:
            return 422, {"message": "Only the first 1000 search results are available"}, {}
        status, chunk, headers = self._paged(request, rows, cap=1000)
        body = {
            "total_count": len(rows),
            "incomplete_results": self.incomplete_search,
            "items": [{**row, "score": 1.0} for row in chunk],
        }
        return status, body, headers

    # -- rate limits ----------------------------------------------------------------------

    def _bucket(self, resource: str, authorization: str, authenticated: bool) -> _Bucket:
        identity = hashlib.sha256(authorization.encode()).hexdigest() if authenticated else "anon"
        now = int(self._clock().timestamp())
        bucket = self._buckets.get((resource, identity))
        if bucket is None or now >= bucket.reset:
            limit = self.limits[(resource, authenticated)]
            fresh = _Bucket(limit, limit, now + PERIODS[resource])
            if bucket is not None:
                self._exhausted.discard(resource)  # a reset ends the exhaustion
            elif resource in self._exhausted:
                fresh.remaining = 0
            elif resource in self._left:
                fresh.remaining = min(limit, self._left[resource])
            bucket = self._buckets[(resource, identity)] = fresh
        return bucket

    def _rate_headers(self, bucket: _Bucket, resource: str) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(max(0, bucket.remaining)),
            "X-RateLimit-Reset": str(bucket.reset),
            "X-RateLimit-Used": str(bucket.limit - max(0, bucket.remaining)),
            "X-RateLimit-Resource": resource,
        }

    def _error(
        self,
        status: int,
        message: str,
        bucket: _Bucket,
        resource: str,
        extra: dict[str, str] | None = None,
        body: Row | None = None,
    ) -> web.Response:
        payload = {**(body or {}), "message": message, "documentation_url": DOCS}
        headers = {**self._rate_headers(bucket, resource), **(extra or {})}
        return web.json_response(payload, status=status, headers=headers)


class RecordingSleep:
    """An injectable ``sleep``: records each delay, moves ``clock`` if given, returns at once."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.delays: list[float] = []
        self._clock = clock

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        if self._clock is not None:
            self._clock.advance(seconds)
        await asyncio.sleep(0)


def issue_row(
    repo: str,
    number: int,
    *,
    created: datetime,
    updated: datetime | None = None,
    closed: datetime | None = None,
    merged: datetime | None = None,
    pr: bool = False,
    title: str = "",
    login: str = "alice",
    comments: int = 0,
    labels: tuple[str, ...] = (),
    body: str = "",
) -> Row:
    """A minimal issue (or PR, with ``pr`` or ``merged``) row in the issues-API shape."""
    is_pr = pr or merged is not None
    ended = closed or merged
    stamps = [created, closed, merged]
    row: Row = {
        "number": number,
        "title": title or f"Item {number}",
        "html_url": f"https://github.com/{repo}/{'pull' if is_pr else 'issues'}/{number}",
        "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
        "labels": [{"name": name} for name in labels],
        "state": "closed" if ended else "open",
        "state_reason": None,
        "comments": comments,
        "created_at": github_time(created),
        "updated_at": github_time(updated or max(s for s in stamps if s is not None)),
        "closed_at": github_time(ended) if ended else None,
        "body": body,
    }
    if is_pr:
        row["pull_request"] = {"merged_at": github_time(merged) if merged else None}
    return row


def comment_row(
    repo: str,
    comment_id: int,
    number: int,
    *,
    created: datetime,
    updated: datetime | None = None,
    login: str = "bob",
    body: str = "Looks good.",
) -> Row:
    """A repository comment row (``issue_url`` names its item, as on GitHub)."""
    return {
        "id": comment_id,
        "issue_url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{comment_id}",
        "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
        "created_at": github_time(created),
        "updated_at": github_time(updated or created),
        "body": body,
    }


def review_comment_row(
    repo: str,
    comment_id: int,
    number: int,
    *,
    created: datetime,
    updated: datetime | None = None,
    login: str | None = "carol",
    body: str = "This branch skips the fast path.",
    path: str = "vllm/model_executor/layers/fused_moe/layer.py",
    in_reply_to: int | None = None,
) -> Row:
    """A repository review-comment row (``pull_request_url`` names its PR; ``login=None`` is a
    deleted account, whose ``user`` GitHub sends as null)."""
    row: Row = {
        "id": comment_id,
        "pull_request_url": f"https://api.github.com/repos/{repo}/pulls/{number}",
        "html_url": f"https://github.com/{repo}/pull/{number}#discussion_r{comment_id}",
        "user": None
        if login is None
        else {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
        "path": path,
        "diff_hunk": "@@ -1,3 +1,4 @@",
        "created_at": github_time(created),
        "updated_at": github_time(updated or created),
        "body": body,
    }
    if in_reply_to is not None:
        row["in_reply_to_id"] = in_reply_to
    return row


def refused_url() -> str:
    """A 127.0.0.1 URL where nothing listens, so connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _issues(query: Mapping[str, str], repo: FakeRepo) -> list[Row]:
    state = query.get("state", "open")
    rows = list(repo.issues.values())
    if state in ("open", "closed"):
        rows = [r for r in rows if r.get("state") == state]
    if "since" in query:
        since = _canonical(query["since"]) or ""
        rows = [r for r in rows if r["updated_at"] >= since]
    key = {"updated": "updated_at", "comments": "comments"}.get(query.get("sort", ""), "created_at")
    descending = query.get("direction", "desc") != "asc"
    rows.sort(key=lambda r: (r.get(key) or 0, r["number"]), reverse=descending)
    return rows


def _comments(
    query: Mapping[str, str], repo: FakeRepo, source: Iterable[Row] | None = None
) -> list[Row]:
    rows = list(repo.comments.values() if source is None else source)
    if "since" in query:
        since = _canonical(query["since"]) or ""
        rows = [r for r in rows if r["updated_at"] >= since]
    key = "updated_at" if query.get("sort") == "updated" else "created_at"
    descending = query.get("direction", "asc") == "desc"
    rows.sort(key=lambda r: (r[key], r["id"]), reverse=descending)
    return rows


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False

    def weak(tag: str) -> str:
        return tag.strip().removeprefix("W/")

    return any(weak(tag) == weak(etag) or tag.strip() == "*" for tag in header.split(","))


def _with_page(url: URL, page: int) -> str:
    return str(url.update_query(page=str(page)))


def _repo_id(repo: FakeRepo) -> int:
    """A repository's id: kept across a rename, as on GitHub."""
    return repo.id if repo.id is not None else zlib.crc32(repo.name.encode())


def _repo_json(repo: FakeRepo) -> Row:
    owner, name = repo.name.split("/", 1)
    latest = max((r["updated_at"] for r in repo.issues.values()), default=None)
    return {
        "id": _repo_id(repo),
        "name": name,
        "full_name": repo.name,
        "owner": {"login": owner, "type": "Organization"},
        "fork": False,
        "archived": False,
        "private": repo.private,
        "visibility": "private" if repo.private else "public",
        "html_url": f"https://github.com/{repo.name}",
        "has_issues": True,
        # its first issue's creation stands for the repository's
        "created_at": min((r["created_at"] for r in repo.issues.values()), default=None),
        "pushed_at": github_time(repo.pushed_at) if repo.pushed_at else latest,
        "updated_at": latest,
    }


def _field(row: Row, name: str) -> str | None:
    if name == "merged":
        pull = row.get("pull_request")
        return pull.get("merged_at") if isinstance(pull, dict) else None
    value = row.get(f"{name}_at")
    return value if isinstance(value, str) else None


def _in_range(value: str | None, lo: str | None, hi: str | None) -> bool:
    if value is None:
        return False
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _moment(text: str, *, upper: bool) -> str | None:
    """A search date or datetime as a canonical bound (a bare date spans its whole day)."""
    if text == "*":
        return None
    if re.fullmatch(r"\d{4}-\d\d-\d\d", text):
        day = datetime.fromisoformat(text).replace(tzinfo=UTC)
        return github_time(day + timedelta(days=1, seconds=-1) if upper else day)
    try:
        return github_time(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError as exc:
        raise ValueError(f"bad date {text!r}") from exc


def _range(text: str) -> tuple[str | None, str | None]:
    if ".." in text:
        lo, hi = text.split("..", 1)
        return _moment(lo, upper=False), _moment(hi, upper=True)
    for op in (">=", "<=", ">", "<"):
        if text.startswith(op):
            bound = _moment(text[len(op) :], upper=op in ("<=", ">"))
            assert bound is not None
            shifted = github_time(
                datetime.fromisoformat(bound.replace("Z", "+00:00"))
                + timedelta(seconds=1 if op == ">" else -1 if op == "<" else 0)
            )
            return (shifted, None) if op.startswith(">") else (None, shifted)
    return _moment(text, upper=False), _moment(text, upper=True)


def _parse_query(q: str) -> tuple[str | None, str | None, list[tuple[str, str | None, str | None]]]:
    repo = kind = None
    ranges = []
    for token in q.split():
        key, _, value = token.partition(":")
        if key == "repo":
            repo = value
        elif key in ("is", "type") and value in ("issue", "pr", "pull-request"):
            kind = "issue" if value == "issue" else "pr"
        elif key in ("created", "closed", "merged", "updated"):
            lo, hi = _range(value)
            ranges.append((key, lo, hi))
    return repo, kind, ranges
