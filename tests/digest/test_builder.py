"""The build pipeline: what a digest built against a rate-limited GitHub tells its reader."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

import digest.analysis.analyze as analysis
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import BuildSlots, DigestBuilder, DigestRequest
from digest.github.client import GitHubClient
from digest.github.parse import comment_from_api, item_from_api
from digest.mirror.gate import SyncGate
from digest.mirror.sync import Syncer
from digest.models import Window
from digest.writers.template import TemplateWriter
from tests.fakes.github import FakeGitHub, RecordingSleep
from tests.support.clock import Clock
from tests.support.service import SYNCED, Synced
from tests.support.synthetic import DEFAULT_NOW, generate

REPO = "vllm-project/vllm"
RESET = datetime(2026, 3, 11, 4, 21, tzinfo=UTC)  # an hour after DEFAULT_NOW


@pytest.fixture
async def token_less() -> AsyncIterator[tuple[FakeGitHub, DigestBuilder, Clock]]:
    """Twenty synthetic days behind a token-less client (60 requests an hour) and a builder
    whose sync goes through the gate, as the composition root wires it."""
    data = generate(days=20, now=DEFAULT_NOW, seed=2)
    clock = Clock(data.now)
    async with FakeGitHub(clock=clock) as fake:
        fake.add_repo(REPO, issues=data.issues, comments=data.comments)
        async with httpx.AsyncClient(base_url=fake.url, timeout=5.0) as http:
            client = GitHubClient(http, sleep=RecordingSleep(clock), clock=clock)
            store, state = SQLiteStore(":memory:"), SQLiteState(":memory:", clock=clock)
            try:
                gate = SyncGate(Syncer(client, store, clock=clock), state, clock)
                writers = {"template": TemplateWriter()}
                yield (
                    fake,
                    DigestBuilder(store=store, sync=gate, writers=writers, clock=clock),
                    clock,
                )
            finally:
                await state.close()
                await store.close()


def _request(lang: str, days: int = 14) -> DigestRequest:
    window = Window(DEFAULT_NOW - timedelta(days=days), DEFAULT_NOW, "UTC", f"{days}d")
    return DigestRequest(REPO, window, lang, "template", ())


def _completes(notes: tuple[str, ...], prefix: str) -> str:
    found = [note for note in notes if note.startswith(prefix)]
    assert len(found) == 1, notes
    return found[0]


async def test_a_stopped_digest_says_when_it_completes(
    token_less: tuple[FakeGitHub, DigestBuilder, Clock],
) -> None:
    """A 14-day digest over the hour's 60 requests says what is missing and when it is
    complete: the reset, plus an hour for each further 60 requests it still needs."""
    _, builder, _ = token_less
    digest = await builder.build(_request("en"))
    assert any(note.endswith("not synced yet") for note in digest.notes)
    note = _completes(digest.notes, "complete after about ")
    n = int(note.split("about ")[2].split(" more")[0])
    assert 0 < n <= 60  # the comments left at the pace read, and a page of review comments
    when = RESET + timedelta(hours=math.ceil(n / 60) - 1)
    assert note == (
        f"complete after about {when:%Y-%m-%d %H:%M} UTC: about {n} more GitHub requests at 60 "
        "an hour; build it again then (a GITHUB_TOKEN raises the limit to 5,000 an hour)"
    )


async def test_the_digest_built_after_the_reset_is_complete(
    token_less: tuple[FakeGitHub, DigestBuilder, Clock],
) -> None:
    """Built again when the stopped digest said, the digest has no note left, in Chinese too."""
    _, builder, clock = token_less
    stopped = await builder.build(_request("zh"))
    note = _completes(stopped.notes, "预计 2026-03-11 04:21 UTC 之后完整")
    assert "每小时可用 60 次" in note
    assert any(n.endswith("之后的尚未同步") for n in stopped.notes)  # what is missing, in Chinese
    assert "GitHub 的速率限制于 2026-03-11 04:21 UTC 重置" in stopped.notes
    assert not any("not synced" in n or "limit resets" in n for n in stopped.notes)
    clock.now = RESET + timedelta(seconds=1)
    assert (await builder.build(_request("zh"))).notes == ()


async def test_a_stopped_digest_is_behind_and_the_one_after_the_reset_is_not(
    token_less: tuple[FakeGitHub, DigestBuilder, Clock],
) -> None:
    """A digest the rate limit stopped is marked behind (its daily post gets corrected); built
    again after the reset it is not."""
    _, builder, clock = token_less
    assert (await builder.build(_request("en"))).behind
    clock.now = RESET + timedelta(seconds=1)
    assert not (await builder.build(_request("en"))).behind


async def test_a_digest_the_limit_did_not_stop_names_no_completion(
    token_less: tuple[FakeGitHub, DigestBuilder, Clock],
) -> None:
    """A one-day digest fits in the hour: no note at all."""
    _, builder, _ = token_less
    assert (await builder.build(_request("en", days=1))).notes == ()


async def test_a_builder_given_its_callers_sync_builds_over_it_without_syncing(
    token_less: tuple[FakeGitHub, DigestBuilder, Clock],
) -> None:
    """Given the result of the sync its caller has just run, the builder asks GitHub nothing
    and says what that sync said."""
    fake, builder, clock = token_less
    digest = await builder.build(_request("en", days=1), Synced(clock(), (SYNCED,)))
    assert fake.requests == []
    assert digest.synced_at == clock()
    assert digest.notes == ("GitHub's limit resets at 2026-03-11 04:21 UTC",)


async def test_builds_beyond_the_process_cap_wait_their_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Six digests asked at once of a builder capped at two: never more than two analysed at
    a time, and all six are built."""
    real, lock, running, peak = analysis.analyze, threading.Lock(), [0], [0]

    def counted(data: object, topics: object, **given: object) -> object:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return real(data, topics, **given)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis, "analyze", counted)
    data = generate(days=3, now=DEFAULT_NOW, seed=2)
    store = SQLiteStore(":memory:")
    await store.upsert_items([item_from_api(r, REPO) for r in data.issues])
    await store.upsert_comments([comment_from_api(r, REPO) for r in data.comments])
    slots = BuildSlots(2)
    builder = DigestBuilder(
        store=store,
        sync=None,
        writers={"template": TemplateWriter()},
        clock=lambda: data.now,
        slots=slots,
    )
    requests = [
        DigestRequest(
            REPO,
            Window(*data.day(k % 3), "UTC", f"day{k}"),
            "en" if k < 3 else "zh",
            "template",
            (),
        )
        for k in range(6)
    ]
    try:
        built = await asyncio.gather(*(builder.build(r) for r in requests))
    finally:
        await store.close()
    assert len(built) == 6 and builder.builds == 6
    assert peak[0] == 2 and slots.peak == 2


async def test_the_same_window_in_another_language_is_analysed_once() -> None:
    """A day's digest in Chinese, then in English, over the same mirror: one analysis, two
    digests that count the same; new data in the window is analysed again."""
    data = generate(days=3, now=DEFAULT_NOW, seed=2)
    store = SQLiteStore(":memory:")
    await store.upsert_items([item_from_api(r, REPO) for r in data.issues])
    await store.upsert_comments([comment_from_api(r, REPO) for r in data.comments])
    builder = DigestBuilder(
        store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: data.now
    )
    window = Window(*data.day(1), "UTC", "day")
    try:
        zh = await builder.build(DigestRequest(REPO, window, "zh", "template", ()))
        en = await builder.build(DigestRequest(REPO, window, "en", "template", ()))
        assert (builder.builds, builder.analyses) == (2, 1)
        assert zh.counts == en.counts and zh.sections != en.sections
        row = dict(data.issues[0], number=999_999, title="New in the window")
        row["created_at"] = (window.start + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        await store.upsert_items([item_from_api(row, REPO)])
        again = await builder.build(DigestRequest(REPO, window, "en", "template", ()))
        assert builder.analyses == 2
        assert again.counts != en.counts
    finally:
        await store.close()


async def test_profiles_are_fetched_once_for_the_people_a_report_names() -> None:
    """The companies of hot-discussion and focus-topic people only, one request each, kept
    for the next build; a profile saying "@AMD" makes its owner AMD in the report."""
    from config.settings import load_config
    from digest.analysis.people import named_people
    from digest.mirror.profiles import Profiles
    from digest.models import UserRef, iter_spans
    from tests.support import vllm_days

    day = vllm_days.DAYS[0]
    window = vllm_days.window(day)
    clock = Clock(window.end + timedelta(minutes=5))
    config = load_config()
    issues, comments, reviews = vllm_days.rows()
    async with FakeGitHub(clock=clock) as fake:
        fake.add_repo(REPO, issues=issues, comments=comments, review_comments=reviews)
        for login, company in vllm_days.PROFILES.items():
            fake.put_user(login, company)
        async with httpx.AsyncClient(base_url=fake.url, timeout=5.0) as http:
            client = GitHubClient(http, token="t", sleep=RecordingSleep(clock), clock=clock)
            store = SQLiteStore(":memory:")
            try:
                builder = DigestBuilder(
                    store=store,
                    sync=Syncer(client, store, clock=clock),
                    writers={"template": TemplateWriter()},
                    clock=clock,
                    profiles=Profiles(store, client, clock=clock),
                )
                request = DigestRequest(
                    REPO,
                    window,
                    "en",
                    "template",
                    (config.topic("rocm"),),
                    organisations=config.organisation_map(),
                )
                digest = await builder.build(request)
                asked = [r.path.split("/")[-1] for r in fake.requests if "/users/" in r.path]
                again = await builder.build(request)
                after = [r for r in fake.requests if "/users/" in r.path]
            finally:
                await store.close()
    named = named_people(vllm_days.day_analysis(day).hot, vllm_days.day_analysis(day).topics)
    assert asked and set(asked) == set(named) and len(asked) == len(set(asked))
    assert "alexm-redhat" not in asked  # the boilerplate PR's author is named nowhere
    assert len(after) == len(asked)
    for built in (digest, again):
        hot = next(s for s in built.sections if s.id == "hot")
        refs = {s.login: s for s in iter_spans(hot.blocks) if isinstance(s, UserRef)}
        assert refs["gshtras"].affiliation == "AMD" and refs["mgoin"].affiliation == ""
