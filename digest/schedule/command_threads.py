"""Chat threads a command started: recorded as they go out, completed after a crash.

A digest asked for in chat goes out as a thread, as a daily post does, and is kept the same way:
the replica posting it opens the thread in the post ledger (where it goes, who asked, the digest
request) under a claim of its own, records each part the platform accepted, and closes the thread
once it is complete. A replica that dies in the middle leaves the thread open and its claim
expires; the next pass of any replica serving that platform (:meth:`ThreadRecovery.recover`)
takes the claim over, builds the same digest again (the digest cache usually still holds it) and
posts the remaining parts under the same parent, never a part that was recorded. A thread older
than ``resume_within``, or whose digest cannot be built again, is not completed: its requester is
told in the thread instead. The window left open is the daily post's: a part the platform
accepted whose record the dying replica never wrote is posted again.

A replica that stays alive and fails in the middle (the platform refused a part) closes the
thread itself: it has told the requester already.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from digest.builder import DigestRequest
from digest.errors import DigestError, ThreadTaken
from digest.models import Digest, Lang, Organisation, Topic, Window
from digest.schedule.ledger import PostLedger
from digest.schedule.scheduler import PartFn, SleepFn, wait_or_stop

log = logging.getLogger(__name__)

BuildFn = Callable[[DigestRequest], Awaitable[Digest]]


@dataclass(frozen=True, slots=True)
class OpenThread:
    """A thread a command started in chat: where it goes, who asked, what digest it holds."""

    key: str
    platform: str
    channel: str
    user: str
    request: DigestRequest
    opened: datetime
    thread: str | None = None  # the thread the command was asked in, when it was asked in one

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping; :meth:`from_dict` reverses it."""
        request, window = self.request, self.request.window
        return {
            "platform": self.platform,
            "channel": self.channel,
            "user": self.user,
            "thread": self.thread,
            "opened": self.opened.isoformat(),
            "request": {
                "repo": request.repo,
                "lang": request.lang,
                "writer": request.writer,
                "display_name": request.display_name,
                "config_fingerprint": request.config_fingerprint,
                "window": {
                    "start": window.start.isoformat(),
                    "end": window.end.isoformat(),
                    "timezone": window.timezone,
                    "label": window.label,
                    "ends_now": window.ends_now,
                },
                "topics": [_topic_dict(t) for t in request.topics],
                "organisations": [
                    {
                        "name": o.name,
                        "suffixes": list(o.suffixes),
                        "prefixes": list(o.prefixes),
                        "logins": list(o.logins),
                    }
                    for o in request.organisations
                ],
                "glossary": [list(pair) for pair in request.glossary],
            },
        }

    @classmethod
    def from_dict(cls, key: str, data: Mapping[str, Any]) -> OpenThread:
        """The thread ``to_dict`` wrote; ``KeyError``/``TypeError``/``ValueError`` when it is not
        one."""
        raw = data["request"]
        win = raw["window"]
        window = Window(
            start=datetime.fromisoformat(win["start"]),
            end=datetime.fromisoformat(win["end"]),
            timezone=str(win["timezone"]),
            label=str(win["label"]),
            ends_now=bool(win["ends_now"]),
        )
        request = DigestRequest(
            repo=str(raw["repo"]),
            window=window,
            lang=Lang(raw["lang"]),
            writer=str(raw["writer"]),
            topics=tuple(_topic(t) for t in raw["topics"]),
            display_name=str(raw["display_name"]),
            config_fingerprint=str(raw["config_fingerprint"]),
            organisations=tuple(
                Organisation(
                    name=str(o["name"]),
                    suffixes=tuple(map(str, o["suffixes"])),
                    prefixes=tuple(map(str, o["prefixes"])),
                    logins=tuple(map(str, o["logins"])),
                )
                for o in raw.get("organisations") or ()
            ),
            glossary=tuple((str(a), str(b)) for a, b in raw.get("glossary") or ()),
        )
        opened = datetime.fromisoformat(data["opened"])
        if opened.tzinfo is None:
            raise ValueError("the thread's opening time has no zone")
        thread = data.get("thread")
        return cls(
            key=key,
            platform=str(data["platform"]),
            channel=str(data["channel"]),
            user=str(data["user"]),
            request=request,
            opened=opened,
            thread=str(thread) if thread else None,
        )


_TOPIC_LISTS = ("labels", "tags", "keywords", "authors", "synonyms", "ignore")


def _topic_dict(topic: Topic) -> dict[str, Any]:
    found: dict[str, Any] = {
        "name": topic.name,
        "title_en": topic.title_en,
        "title_zh": topic.title_zh,
        "organisation": topic.organisation,
    }
    for name in _TOPIC_LISTS:
        found[name] = list(getattr(topic, name))
    return found


def _topic(data: Mapping[str, Any]) -> Topic:
    lists = {name: tuple(str(v) for v in data[name]) for name in _TOPIC_LISTS}
    return Topic(
        name=str(data["name"]),
        title_en=str(data["title_en"]),
        title_zh=str(data["title_zh"]),
        organisation=str(data.get("organisation") or ""),
        **lists,
    )


ThreadPost = Callable[[str, str | None, Digest | str, tuple[str, ...], PartFn], Awaitable[None]]
"""One platform's poster of command threads, called with the channel, the thread the command was
asked in (or None), the content, the ids of the parts already out and ``part_sent``: it posts
the digest's parts after the ``done`` ones under the parent ``done[0]`` (all of them when
``done`` is empty), awaiting ``part_sent(index, id)`` after each; given a string, that one
message, in the thread (or where the thread would be)."""

NoteFn = Callable[[OpenThread, int], str]
"""The words that tell the requester a thread was cut short after ``n`` parts."""


class Tracked:
    """One command thread this replica is posting; its parts are recorded as they go out.

    Ledger failures are logged and end the tracking (the post goes on: a thread that cannot be
    recorded is still worth posting); a claim taken over by another replica raises
    :class:`~digest.errors.ThreadTaken`, so this one stops before doubling a part.
    """

    def __init__(self, threads: CommandThreads, thread: OpenThread | None) -> None:
        self._threads = threads
        self.thread = thread
        self._recording: asyncio.Future[bool] | None = None

    async def sent(self, index: int, message_id: str) -> None:
        """Record part ``index`` (0 is the parent), accepted with ``message_id``."""
        if self.thread is None:
            return
        key = self.thread.key
        try:
            # a stop cancelling the post now must not lose the record of a part that is out
            self._recording = asyncio.ensure_future(self._threads.record(key, index, message_id))
            recorded = await asyncio.shield(self._recording)
        except DigestError as exc:
            self._threads.state_failed("record_part", exc)
            self.thread = None
            return
        if not recorded:
            self.thread = None
            raise ThreadTaken(key)

    async def done(self) -> None:
        """The thread is complete: mark it posted and close it."""
        await self._close(posted=True)

    async def failed(self) -> None:
        """The thread broke off and its requester was told: close it, do not complete it."""
        await self._close(posted=False)

    async def stopped(self) -> None:
        """This replica stops posting it (it is stopping): the next pass of any replica
        completes the thread."""
        thread, self.thread = self.thread, None
        if thread is None:
            return
        if self._recording is not None:  # the last part's record first, then the claim
            await asyncio.gather(self._recording, return_exceptions=True)
        await self._threads.release(thread.key)

    async def _close(self, *, posted: bool) -> None:
        thread, self.thread = self.thread, None
        if thread is not None:
            await self._threads.close(thread.key, posted=posted)


class CommandThreads:
    """The journal of the chat threads commands start: each is opened, recorded part by part
    and closed in the post ledger, under a claim of this replica (``owner``)."""

    def __init__(
        self,
        ledger: PostLedger,
        *,
        clock: Callable[[], datetime],
        owner: str | None = None,
        claim_ttl: timedelta = timedelta(minutes=10),
        keep: timedelta = timedelta(days=1),
    ) -> None:
        self.ledger = ledger
        self.clock = clock
        self.owner = owner or uuid.uuid4().hex[:12]
        self.claim_ttl = claim_ttl
        self._keep = keep
        self.counters: dict[str, int] = {
            "threads_opened": 0,
            "threads_completed": 0,
            "threads_resumed": 0,
            "threads_cut_short": 0,
        }

    async def open(
        self,
        *,
        platform: str,
        channel: str,
        user: str,
        request: DigestRequest,
        thread: str | None = None,
    ) -> Tracked:
        """Open a thread about to be posted; with the ledger unreachable it goes out untracked."""
        opened = OpenThread(
            key=f"cmd:{uuid.uuid4().hex}",
            platform=platform,
            channel=channel,
            user=user,
            request=request,
            opened=self.clock(),
            thread=thread,
        )
        try:
            now = self.clock()
            if not await self.ledger.claim(opened.key, self.owner, now, self.claim_ttl):
                return Tracked(self, None)
            await self.ledger.open_thread(opened.key, opened.to_dict(), self._keep)
        except DigestError as exc:
            self.state_failed("open_thread", exc)
            return Tracked(self, None)
        self.counters["threads_opened"] += 1
        return Tracked(self, opened)

    async def record(self, key: str, index: int, message_id: str) -> bool:
        now = self.clock()
        return await self.ledger.record_part(
            key, self.owner, index, message_id, now, self.claim_ttl
        )

    async def close(self, key: str, *, posted: bool) -> None:
        """Close ``key``, marked posted or released; failures are logged."""
        try:
            if posted:
                await self.ledger.mark_posted(key, self.owner, self.clock(), self._keep)
                self.counters["threads_completed"] += 1
            else:
                await self.ledger.release(key, self.owner)
            await self.ledger.close_thread(key)
        except DigestError as exc:
            self.state_failed("close_thread", exc)

    async def release(self, key: str) -> None:
        """Let ``key``'s claim go, so the next pass completes the thread; failures are logged."""
        try:
            await self.ledger.release(key, self.owner)
        except DigestError as exc:
            self.state_failed("release", exc)

    def state_failed(self, op: str, exc: DigestError) -> None:
        log.warning(
            "threads.state_unavailable",
            extra={"op": op, "error": type(exc).__name__, "detail": str(exc)},
        )


class ThreadRecovery:
    """Completes the command threads of the journal ``threads`` whose replica died.

    ``posts`` holds the poster of each platform this replica serves; only their threads are
    recovered here. Its counters are the journal's.
    """

    def __init__(
        self,
        threads: CommandThreads,
        *,
        posts: Mapping[str, ThreadPost],
        build: BuildFn,
        note: NoteFn,
        resume_within: timedelta = timedelta(minutes=30),
        poll: timedelta = timedelta(minutes=1),
        sleep: SleepFn = asyncio.sleep,
    ) -> None:
        self._threads = threads
        self._ledger = threads.ledger
        self._clock = threads.clock
        self._posts: Mapping[str, ThreadPost] = dict(posts)
        self._build = build
        self._note = note
        self.resume_within = resume_within
        self._poll = poll
        self._sleep = sleep

    @property
    def counters(self) -> dict[str, int]:
        return self._threads.counters

    async def _claim(self, key: str) -> bool:
        threads = self._threads
        return await self._ledger.claim(key, threads.owner, self._clock(), threads.claim_ttl)

    async def recover(self) -> int:
        """One pass: complete (or tell the requester of) every open thread whose replica died.

        Returns the number of threads closed. Never raises but for cancellation and an
        unreachable ledger (:class:`~digest.errors.DigestError`).
        """
        closed = 0
        for key, doc in (await self._ledger.open_threads()).items():
            try:
                thread = OpenThread.from_dict(key, doc)
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("threads.unreadable", extra={"key": key, "error": str(exc)})
                await self._ledger.close_thread(key)
                continue
            post = self._posts.get(thread.platform)
            if post is None:
                continue
            if not await self._claim(key):
                if await self._ledger.is_posted(key):  # complete: its closing was lost
                    await self._ledger.close_thread(key)
                continue  # its replica is alive
            if await self._complete(thread, post):
                closed += 1
        return closed

    async def _complete(self, thread: OpenThread, post: ThreadPost) -> bool:
        threads = self._threads
        done = await self._ledger.resume(
            thread.key, threads.owner, self._clock(), threads.claim_ttl
        )
        if done is None:
            return False
        tracked = Tracked(threads, thread)
        content: Digest | str
        late = self._clock() - thread.opened > self.resume_within
        if late:
            content = self._note(thread, len(done))
        else:
            try:
                content = await self._build(thread.request)
            except Exception as exc:  # noqa: BLE001 - the requester hears of it, the log too
                log.warning(
                    "threads.rebuild_failed", extra={"key": thread.key, "error": type(exc).__name__}
                )
                content = self._note(thread, len(done))
        cut_short = isinstance(content, str)
        part_sent = tracked.sent if not cut_short else _nothing
        try:
            await post(thread.channel, thread.thread, content, done, part_sent)
        except asyncio.CancelledError:
            await asyncio.shield(threads.release(thread.key))
            raise
        except ThreadTaken:
            return False
        except Exception:
            log.exception(
                "threads.resume_failed", extra={"key": thread.key, "platform": thread.platform}
            )
            if cut_short:  # nothing more can be said: give the thread up
                await tracked.failed()
                return True
            await threads.release(thread.key)  # tried again on the next pass
            return False
        self.counters["threads_cut_short" if cut_short else "threads_resumed"] += 1
        log.info(
            "threads.completed",
            extra={
                "key": thread.key,
                "platform": thread.platform,
                "resumed_at": len(done),
                "cut_short": cut_short,
            },
        )
        await tracked.done()
        return True

    async def run_forever(self, stop: asyncio.Event) -> None:
        """Recover every ``poll`` until ``stop`` is set."""
        while not stop.is_set():
            try:
                await self.recover()
            except DigestError as exc:
                self._threads.state_failed("open_threads", exc)
            except Exception:
                log.exception("threads.recover_failed")
            await wait_or_stop(stop, self._poll.total_seconds(), self._sleep)


async def _nothing(index: int, message_id: str) -> None:
    return None
