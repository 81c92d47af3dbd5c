"""An async GitHub REST client: the issues, comments and review-comments streams, the Search
API, rate limits.

The ``httpx.AsyncClient`` is injected (its ``base_url`` is the API root, e.g.
``https://api.github.com`` or a GitHub Enterprise ``https://ghe.example/api/v3``). Every HTTP
request made, retries and 304s included, is counted in ``requests_made``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import httpx

from digest.errors import (
    ConfigError,
    Gone,
    NotFound,
    RateLimited,
    RepoMoved,
    SearchRefused,
    SourceUnavailable,
)
from digest.github.reserve import BudgetReserved, is_interactive, reserved
from digest.github.retry import (
    TRANSIENT_ERRORS,
    Action,
    Decision,
    RetryPolicy,
    backoff,
    decide,
    reset_time,
)

log = logging.getLogger(__name__)

PER_PAGE = 100
SEARCH_CAP = 1000  # the Search API serves at most this many results per query
API_VERSION = "2022-11-28"
REDIRECTS = (301, 302, 307, 308)
MAX_REDIRECTS = 3

Row = dict[str, Any]
Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], datetime]
ItemKindName = Literal["issue", "pr"]
SearchField = Literal["created", "closed", "merged"]


def github_time(moment: datetime) -> str:
    """A moment as GitHub writes it: ``2026-03-10T03:21:00Z`` (UTC, whole seconds)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class RateStatus:
    """The rate-limit headers last seen for one resource (``core``, ``search``)."""

    resource: str
    limit: int | None
    remaining: int | None
    reset_at: datetime | None


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a list endpoint; ``not_modified`` when the ETag still matched (a 304)."""

    rows: list[Row]
    etag: str | None = None
    not_modified: bool = False
    has_next: bool = False
    last: int | None = None  # the number of the query's last page (its ``rel="last"`` link)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Search hits; ``complete`` is false when GitHub could not serve every match."""

    rows: list[Row]
    complete: bool = True


class GitHubClient:
    """GitHub REST on an injected ``httpx.AsyncClient``; the token is optional."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        token: str | None = None,
        policy: RetryPolicy | None = None,
        clock: Clock,
        sleep: Sleep = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
        reserve: float = 0.0,
    ) -> None:
        self._http = http
        self._reserve = reserve  # share of the hourly limit kept from interactive work
        self._token = token or None
        self._policy = policy or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._jitter = jitter
        self.requests_made = 0
        self.not_modified = 0
        self.rate: dict[str, RateStatus] = {}
        self._moved: set[str] = set()  # paths whose redirect was logged
        self.redirected: set[str] = set()  # repositories (lower case) a redirect moved

    def __repr__(self) -> str:
        base = str(self._http.base_url)
        return f"GitHubClient(base_url={base!r}, authenticated={self.authenticated})"

    @property
    def authenticated(self) -> bool:
        return self._token is not None

    def remaining(self, resource: str = "core") -> int | None:
        """Requests left on ``resource`` as last reported, or ``None`` before any answer."""
        status = self.rate.get(resource)
        return None if status is None else status.remaining

    # -- endpoints ------------------------------------------------------------------------

    async def repository(self, repo: str) -> Row:
        """``GET /repos/{owner}/{name}``; ``NotFound`` when it does not exist or is hidden."""
        return _json_object(await self._get(f"/repos/{repo}", what=repo))

    async def issue(self, repo: str, number: int) -> Row:
        """``GET /repos/{owner}/{name}/issues/{number}``: one issue or PR row."""
        path = f"/repos/{repo}/issues/{number}"
        return _json_object(await self._get(path, what=f"{repo}#{number}"))

    async def user(self, login: str) -> Row:
        """``GET /users/{login}``: one profile (``company`` among its fields)."""
        return _json_object(await self._get(f"/users/{login}", what=f"@{login}"))

    def owner_repos(self, owner: str, *, user: bool = False) -> AsyncGenerator[Page, None]:
        """``GET /orgs/{owner}/repos`` (``/users/{owner}/repos`` when ``user``): the owner's
        repositories, most recently pushed first, page by page; ``NotFound`` when GitHub has
        no such organisation (or user)."""
        params = {"sort": "pushed", "direction": "desc", "per_page": str(PER_PAGE)}
        if not user:
            params["type"] = "all"
        kind = "users" if user else "orgs"
        return self._pages(f"/{kind}/{owner}/repos", params, etag=None, what=f"{owner}/*")

    def issues(
        self, repo: str, since: datetime, *, etag: str | None = None
    ) -> AsyncGenerator[Page, None]:
        """Issues and PRs updated at or after ``since``, oldest update first, page by page."""
        params = {
            "state": "all",
            "since": github_time(since),
            "sort": "updated",
            "direction": "asc",
            "per_page": str(PER_PAGE),
        }
        return self._pages(f"/repos/{repo}/issues", params, etag=etag, what=repo)

    def comments(
        self, repo: str, since: datetime, *, etag: str | None = None
    ) -> AsyncGenerator[Page, None]:
        """Every conversation comment updated at or after ``since``, oldest update first."""
        params = {
            "since": github_time(since),
            "sort": "updated",
            "direction": "asc",
            "per_page": str(PER_PAGE),
        }
        return self._pages(f"/repos/{repo}/issues/comments", params, etag=etag, what=repo)

    def review_comments(
        self, repo: str, since: datetime, *, etag: str | None = None
    ) -> AsyncGenerator[Page, None]:
        """Every inline review comment on a pull request updated at or after ``since``, oldest
        update first (``GET /repos/{o}/{r}/pulls/comments``)."""
        params = {
            "since": github_time(since),
            "sort": "updated",
            "direction": "asc",
            "per_page": str(PER_PAGE),
        }
        return self._pages(f"/repos/{repo}/pulls/comments", params, etag=etag, what=repo)

    async def search(
        self,
        repo: str,
        *,
        kind: ItemKindName,
        field: SearchField,
        start: datetime,
        end: datetime,
    ) -> SearchResult:
        """Items of ``kind`` whose ``field`` time is in ``[start, end)``, via the Search API.

        GitHub times are whole seconds, so the half-open window becomes the inclusive range
        ``ceil(start) .. ceil(end) - 1s``; a range holding more than 1,000 results is split.
        """
        first = _ceil_second(start)
        last = _ceil_second(end) - timedelta(seconds=1)
        if last < first:
            return SearchResult([])
        return await self._search_range(repo, kind, field, first, last)

    async def _search_range(
        self,
        repo: str,
        kind: ItemKindName,
        field: SearchField,
        first: datetime,
        last: datetime,
    ) -> SearchResult:
        query = f"repo:{repo} is:{kind} {field}:{github_time(first)}..{github_time(last)}"
        params = {"q": query, "sort": "created", "order": "asc", "per_page": str(PER_PAGE)}
        response = await self._get("/search/issues", params=params, what=repo, allow=(422,))
        if response.status_code == 422:
            await self._unsearchable(repo, response)
        body = _json_object(response)
        total = int(body.get("total_count") or 0)
        if total > SEARCH_CAP and last > first:
            parts = math.ceil(total / (SEARCH_CAP * 0.8))
            rows: list[Row] = []
            complete = True
            for lo, hi in _slices(first, last, parts):
                result = await self._search_range(repo, kind, field, lo, hi)
                rows.extend(result.rows)
                complete = complete and result.complete
            return SearchResult(_unique(rows), complete)
        rows = list(body.get("items") or [])
        complete = not body.get("incomplete_results") and total <= SEARCH_CAP
        next_url = self._next_link(response)
        while next_url is not None:
            response = await self._get(next_url, what=repo, allow=(422,))
            if response.status_code == 422:  # past the 1,000th result
                complete = False
                break
            body = _json_object(response)
            rows.extend(body.get("items") or [])
            complete = complete and not body.get("incomplete_results")
            next_url = self._next_link(response)
        return SearchResult(_unique(rows), complete)

    async def _unsearchable(self, repo: str, response: httpx.Response) -> None:
        """A 422 from search: an unknown repository (``NotFound``), a renamed one (the Search
        API does not follow renames: ``RepoMoved``), or a query GitHub refuses
        (``SearchRefused``)."""
        row = await self.repository(repo)  # raises NotFound for an unknown repository
        current = str(row.get("full_name") or repo)
        if current.lower() != repo.lower():
            raise RepoMoved(repo, current)
        raise SearchRefused(repo, response.status_code, _message(response))

    # -- transport ------------------------------------------------------------------------

    async def _pages(
        self, path: str, params: dict[str, str], *, etag: str | None, what: str
    ) -> AsyncGenerator[Page, None]:
        url: str = path
        query: dict[str, str] | None = params
        conditional = etag
        while True:
            response = await self._get(url, params=query, etag=conditional, what=what)
            if response.status_code == 304:
                yield Page([], etag=etag, not_modified=True)
                return
            next_url = self._next_link(response)
            rows = _json_list(response)
            yield Page(
                rows,
                etag=response.headers.get("etag"),
                has_next=next_url is not None,
                last=_last_page(response),
            )
            if next_url is None:
                return
            url, query, conditional = next_url, None, None

    async def _get(
        self,
        url: str,
        *,
        params: dict[str, str] | None = None,
        etag: str | None = None,
        what: str,
        allow: tuple[int, ...] = (),
    ) -> httpx.Response:
        """One GET with retries, following GitHub's redirects (a renamed or transferred
        repository, a transferred issue: 301, 302, 307, 308) on the API host only; returns a
        2xx, a 304 or an ``allow``-ed status. Inside interactive work, a request of the hourly
        limit is not sent while it is within the reserve: ``BudgetReserved``."""
        self._check_reserve(url)
        target: str | httpx.URL = url
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._get_once(
                target, params=params, etag=etag, what=what, allow=(*allow, *REDIRECTS)
            )
            if response.status_code not in REDIRECTS or response.status_code in allow:
                return response
            location = response.headers.get("location")
            if not location:
                raise SourceUnavailable(
                    f"GitHub answered {response.status_code} without a Location"
                )
            moved = response.url.join(location)
            self._same_host(moved, "a redirect")
            key = "/".join(response.url.path.split("/")[:4])  # /repos/{owner}/{name}
            if key.startswith("/repos/") and key.count("/") == 3:
                self.redirected.add(key.removeprefix("/repos/").lower())
            if key not in self._moved:
                self._moved.add(key)
                log.warning(
                    "github.redirected",
                    extra={
                        "what": what,
                        "from": key,
                        "to": moved.path,
                        "status": response.status_code,
                    },
                )
            target, params = moved, None  # the Location carries its own query
        raise SourceUnavailable(f"GitHub redirected {what} more than {MAX_REDIRECTS} times")

    async def _get_once(
        self,
        url: str | httpx.URL,
        *,
        params: dict[str, str] | None = None,
        etag: str | None = None,
        what: str,
        allow: tuple[int, ...] = (),
    ) -> httpx.Response:
        """One GET with retries; returns a 2xx, a 304 or an ``allow``-ed status."""
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        if etag:
            headers["If-None-Match"] = etag
        policy = self._policy
        slept = 0.0
        failure: Exception | None = None
        decision = Decision(Action.DONE)
        attempt = 0
        for attempt in range(1, policy.attempts + 1):
            self.requests_made += 1
            response: httpx.Response | None = None
            try:
                response = await self._http.get(url, params=params, headers=headers)
            except TRANSIENT_ERRORS as exc:
                failure = exc
                decision = Decision(Action.RETRY, type(exc).__name__)
            except httpx.HTTPError as exc:  # a proxy, redirect loop or body that will not change
                raise SourceUnavailable(f"GitHub request failed ({type(exc).__name__})") from exc
            else:
                self._note_rate(response)
                message = _message(response) if response.status_code in (403, 429) else ""
                decision = decide(
                    response.status_code,
                    response.headers,
                    message,
                    now=self._clock(),
                    policy=policy,
                )
            if decision.action is Action.DONE and response is not None:
                log.debug(
                    "github.response",
                    extra={"path": response.url.path, "status": response.status_code},
                )
                return self._checked(response, what, allow)
            if decision.action is Action.RATE_LIMITED:
                raise self._rate_limited(decision)
            if decision.action is Action.WAIT:
                delay = decision.delay
            else:
                delay = backoff(attempt, policy, self._jitter())
            if attempt >= policy.attempts or slept + delay > policy.max_total:
                break
            log.warning(
                "github.retry_scheduled",
                extra={
                    "path": httpx.URL(url).path,
                    "reason": decision.reason,
                    "attempt": attempt,
                    "delay": round(delay, 2),
                },
            )
            await self._sleep(delay)
            slept += delay
        if decision.action is Action.WAIT:
            raise self._rate_limited(decision)
        raise SourceUnavailable(
            f"GitHub kept failing ({decision.reason}) after {attempt} attempts"
        ) from failure

    def _check_reserve(self, url: str) -> None:
        if not self._reserve or not is_interactive() or "/search/" in url:
            return
        status = self.rate.get("core")
        if status is not None and reserved(status.limit, status.remaining, self._reserve):
            log.info(
                "github.budget_reserved",
                extra={"remaining": status.remaining, "limit": status.limit, "what": url},
            )
            raise BudgetReserved(status.reset_at)

    def _rate_limited(self, decision: Decision) -> RateLimited:
        log.warning(
            "github.rate_limited",
            extra={"reason": decision.reason, "reset_at": str(decision.reset_at)},
        )
        return RateLimited(decision.reset_at, authenticated=self.authenticated)

    def _checked(
        self, response: httpx.Response, what: str, allow: tuple[int, ...]
    ) -> httpx.Response:
        status = response.status_code
        if status < 300 or status == 304 or status in allow:
            if status == 304:
                self.not_modified += 1
            return response
        if status == 401:
            raise ConfigError("GitHub rejected the token (401 Bad credentials)")
        if status == 404:
            raise NotFound(what)
        if status == 410:
            raise Gone(f"{what} (deleted, or the repository's issues are disabled)")
        if 400 <= status < 500 and response.url.path.startswith("/search/"):
            raise SearchRefused(what, status, _message(response))
        raise SourceUnavailable(
            f"GitHub answered {status} for {response.url.path}: {_message(response)}"
        )

    def _note_rate(self, response: httpx.Response) -> None:
        headers = response.headers
        if "x-ratelimit-remaining" not in headers:
            return
        resource = headers.get("x-ratelimit-resource", "core")
        self.rate[resource] = RateStatus(
            resource=resource,
            limit=_int(headers.get("x-ratelimit-limit")),
            remaining=_int(headers.get("x-ratelimit-remaining")),
            reset_at=reset_time(headers),
        )

    def _next_link(self, response: httpx.Response) -> str | None:
        """The ``rel="next"`` URL, refused when it points at another host than the API."""
        url = response.links.get("next", {}).get("url")
        if not url:
            return None
        self._same_host(httpx.URL(url), "a pagination link")
        return str(url)

    def _same_host(self, target: httpx.URL, what: str) -> None:
        """Refuse to send the token anywhere but the API host."""
        base = self._http.base_url
        if base.host and (target.scheme, target.host, target.port) != (
            base.scheme,
            base.host,
            base.port,
        ):
            raise SourceUnavailable(f"GitHub sent {what} to another host: {target.host}")


def _last_page(response: httpx.Response) -> int | None:
    """The page number of a list's ``rel="last"`` link, ``None`` without one."""
    url = response.links.get("last", {}).get("url")
    page = httpx.URL(str(url)).params.get("page") if url else None
    return int(page) if page and page.isdigit() else None


def _ceil_second(moment: datetime) -> datetime:
    whole = moment.astimezone(UTC).replace(microsecond=0)
    return whole if whole == moment else whole + timedelta(seconds=1)


def _slices(first: datetime, last: datetime, parts: int) -> list[tuple[datetime, datetime]]:
    """``[first, last]`` (inclusive, whole seconds) cut into at most ``parts`` slices."""
    seconds = int((last - first).total_seconds()) + 1
    size = max(1, math.ceil(seconds / parts))
    out = []
    for offset in range(0, seconds, size):
        lo = first + timedelta(seconds=offset)
        out.append((lo, min(last, lo + timedelta(seconds=size - 1))))
    return out


def _unique(rows: list[Row]) -> list[Row]:
    seen: dict[Any, Row] = {}
    for row in rows:
        seen[row.get("number")] = row
    return list(seen.values())


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.strip().lstrip("-").isdigit() else None


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(body, dict):
        return str(body.get("message") or "")
    return ""


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise SourceUnavailable(
            f"GitHub sent a body that is not JSON for {response.url.path}"
        ) from exc


def _json_list(response: httpx.Response) -> list[Row]:
    body = _json(response)
    if not isinstance(body, list):
        raise SourceUnavailable(f"GitHub sent an unexpected body for {response.url.path}")
    return body


def _json_object(response: httpx.Response) -> Row:
    body = _json(response)
    if not isinstance(body, dict):
        raise SourceUnavailable(f"GitHub sent an unexpected body for {response.url.path}")
    return body
