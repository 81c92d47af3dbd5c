"""Two repositories that share item numbers, behind the fake GitHub, and the service that
builds their digests: the rig of the scope tests and the scope bench.

``vllm-project/vllm`` and ``sgl-project/sglang`` both have a #1, #2 and #3 in the window
``WINDOW``; each has a ROCm item, a bot's dependency bump labelled ``dependencies`` and a
discussed issue. Their exact counts are ``COUNTS`` (``FILTERED`` without the bumps).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import httpx

from config.settings import load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestBuilder, DigestRequest
from digest.github.client import GitHubClient
from digest.mirror.gate import SyncGate
from digest.mirror.owners import OwnerRepos
from digest.mirror.sync import Syncer
from digest.models import Counts, Digest, Item, ItemKind, ItemState, Lang, Window
from digest.scope import Filters, Scope
from digest.service import DigestService
from digest.writers.template import TemplateWriter
from tests.fakes.github import FakeGitHub, RecordingSleep, Row, comment_row, issue_row
from tests.support.clock import Clock

VLLM = "vllm-project/vllm"
SGLANG = "sgl-project/sglang"
T0 = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
WINDOW = Window(T0, T0 + timedelta(days=1), "Asia/Shanghai", "2026-03-10")
NOW = WINDOW.end + timedelta(hours=1)
BUMPS = Filters(exclude_labels=("dependencies",), exclude_authors=("*[bot]",))

COUNTS = {
    VLLM: Counts(new_issues=1, closed_issues=1, new_prs=2, merged_prs=1, closed_unmerged_prs=1),
    SGLANG: Counts(new_issues=2, closed_issues=0, new_prs=2, merged_prs=1, closed_unmerged_prs=0),
}
TOTAL = Counts(new_issues=3, closed_issues=1, new_prs=4, merged_prs=2, closed_unmerged_prs=1)
FILTERED = {
    VLLM: Counts(new_issues=1, closed_issues=1, new_prs=1, merged_prs=1, closed_unmerged_prs=1),
    SGLANG: Counts(new_issues=2, closed_issues=0, new_prs=1, merged_prs=0, closed_unmerged_prs=0),
}
FILTERED_TOTAL = Counts(
    new_issues=3, closed_issues=1, new_prs=2, merged_prs=1, closed_unmerged_prs=1
)


def scope_item(repo: str, number: int, **changes: object) -> Item:
    """An open issue of ``repo``, created at the window's start, with ``changes``."""
    item = Item(
        repo=repo,
        number=number,
        kind=ItemKind.ISSUE,
        title="Something",
        author="alice",
        author_is_bot=False,
        labels=(),
        state=ItemState.OPEN,
        state_reason=None,
        created_at=T0,
        updated_at=T0,
        closed_at=None,
        merged_at=None,
        url=f"https://github.com/{repo}/issues/{number}",
    )
    return replace(item, **changes)  # type: ignore[arg-type]


def _at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def _rows() -> dict[str, tuple[list[Row], list[Row]]]:
    """Each repository's issue and comment rows."""
    vllm = [
        issue_row(
            VLLM,
            1,
            created=_at(1),
            title="[ROCm] MI300X crash in paged attention",
            labels=("rocm",),
        ),
        issue_row(
            VLLM, 2, created=_at(2), merged=_at(8), title="[Kernel] Faster AITER MoE on MI355X"
        ),
        issue_row(
            VLLM,
            3,
            created=_at(3),
            pr=True,
            title="Bump torch from 2.8 to 2.9",
            login="dependabot[bot]",
            labels=("dependencies",),
        ),
        issue_row(VLLM, 4, created=_at(-50), closed=_at(5), title="Scheduler stalls under load"),
        issue_row(
            VLLM, 5, created=_at(-30), closed=_at(6), pr=True, title="[WIP] Try a new sampler"
        ),
    ]
    sglang = [
        issue_row(
            SGLANG, 1, created=_at(1.5), title="[AMD] ROCm build fails on gfx942", login="bob"
        ),
        issue_row(SGLANG, 2, created=_at(2.5), pr=True, title="Add speculative decoding"),
        issue_row(
            SGLANG,
            3,
            created=_at(3.5),
            merged=_at(9),
            title="chore(deps): bump flashinfer to 0.5",
            login="renovate[bot]",
            labels=("dependencies",),
        ),
        issue_row(SGLANG, 6, created=_at(4), title="Docs: the router flags are out of date"),
    ]
    said = (
        "The crash happens on every long prompt with the paged attention kernel.",
        "I can reproduce it on MI300X with the default block size of sixteen.",
        "Setting the block size to thirty-two avoids it, so the tiling is the cause.",
    )
    vllm_comments = [
        comment_row(VLLM, 100 + k, 1, created=_at(4 + k), login=who, body=body)
        for k, (who, body) in enumerate(zip(("carol", "dave", "erin"), said, strict=True))
    ]
    sglang_comments = [
        comment_row(SGLANG, 100 + k, 1, created=_at(5 + k), login=who, body=body)
        for k, (who, body) in enumerate(zip(("frank", "grace", "heidi"), said, strict=True))
    ]
    return {VLLM: (vllm, vllm_comments), SGLANG: (sglang, sglang_comments)}


def request(
    repos: Iterable[str] = (VLLM, SGLANG),
    *,
    lang: Lang = Lang.EN,
    filters: Filters | None = None,
    name: str = "",
) -> DigestRequest:
    """The digest of ``WINDOW`` over ``repos`` (one repository: its plain request)."""
    repos = tuple(repos)
    scope = Scope(repos, name=name, filters=filters or Filters())
    return DigestRequest(
        repo=repos[0],
        window=WINDOW,
        lang=lang,
        writer="template",
        topics=(load_config().topic("rocm"),),
        display_name="Serving",
        scope=None if scope.plain and not name else scope,
    )


@dataclass
class ScopeRig:
    """The fake GitHub serving both repositories, and a digest service over a fresh mirror
    (which resolves ``owner/*`` entries through the same client)."""

    fake: FakeGitHub
    service: DigestService
    clock: Clock
    store: SQLiteStore

    def requests(self, repo: str | None = None) -> int:
        """The requests made so far (to ``repo`` only, when given)."""
        if repo is None:
            return len(self.fake.requests)
        return sum(r.path.startswith(f"/repos/{repo}/") for r in self.fake.requests)

    async def digest(self, req: DigestRequest) -> Digest:
        return await self.service.get_digest(req)


@asynccontextmanager
async def scope_rig(token: str | None = "t0ken") -> AsyncIterator[ScopeRig]:
    """Both repositories behind the fake GitHub, a token client, a fresh SQLite mirror and the
    service as the composition root wires it (sync gate, shared state, template writer)."""
    clock = Clock(NOW)
    async with FakeGitHub(clock=clock) as fake:
        for repo, (issues, comments) in _rows().items():
            fake.add_repo(repo, issues=issues, comments=comments)
        async with httpx.AsyncClient(base_url=fake.url, timeout=5.0) as http:
            client = GitHubClient(http, token=token, sleep=RecordingSleep(clock), clock=clock)
            store, state = SQLiteStore(":memory:"), SQLiteState(":memory:", clock=clock)
            try:
                gate = SyncGate(Syncer(client, store, clock=clock), state, clock)
                builder = DigestBuilder(
                    store=store, sync=gate, writers={"template": TemplateWriter()}, clock=clock
                )
                owners = OwnerRepos(client, clock)
                service = DigestService(
                    builder, state, clock, store=store, sync=gate, owners=owners
                )
                yield ScopeRig(fake, service, clock, store)
            finally:
                await state.close()
                await store.close()
