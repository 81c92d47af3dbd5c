"""Replicas killed with SIGKILL in the middle of daily threads: every thread ends complete.

Three scheduler replicas run as their own processes on one real Redis and post three channels'
daily threads to the fake Slack; at random points of the threads the replica holding the claims
is killed (``kill -9``), once or twice per repetition. The replica that
takes over completes each thread from its next part under the same parent. The one window left,
a part Slack accepted whose record the killed replica never wrote, repeats that part; the test
counts how often, and prints the figure.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections import Counter
from itertools import groupby
from typing import Any

import pytest

from bot.commands import messages
from bot.slack.post import command_post
from bot.slack.render import render_slack
from digest.backends.redis.ledger import RedisLedger
from digest.backends.redis.state import RedisState
from digest.schedule.subscription import claim_key, run_window
from digest.schedule.subscriptions import StateSubscriptions
from tests.fakes.slack import FakeSlack, start_fake_slack, stop_fake_slack
from tests.support.crash_replica import PACE_S
from tests.support.paths import ROOT
from tests.support.redis_server import Sandbox, sandbox
from tests.support.serve import SCHEDULED, sample_digest, subscription

REPETITIONS = 30
AT_ONCE = 3  # repetitions run side by side, each with its own fake Slack and key prefix
CHANNELS = ("C0000001", "C0000002", "C0000003")
SUBSCRIPTIONS = tuple(subscription(channel=c) for c in CHANNELS)
KEYS = tuple(claim_key(s, run_window(s, SCHEDULED)) for s in SUBSCRIPTIONS)


async def spawn(
    box: Sandbox, prefix: str, fake: FakeSlack, epoch: float, owner: str, *mode: str
) -> Any:
    """A replica process (``mode``: see :mod:`tests.support.crash_replica`)."""
    args = (box.url, prefix, fake.api_url, repr(epoch), owner, *mode)
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.support.crash_replica",
        *args,
        cwd=str(ROOT),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def holder(box: Sandbox, prefix: str) -> str | None:
    """The owner of the first live claim among the runs, if any."""
    for key in KEYS:
        value = await box.client.get(f"{prefix}ledger:{key}")
        if value is not None and value.startswith(b"c|"):
            return str(value.decode().split("|")[1])
    return None


async def all_posted(ledger: RedisLedger, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if all([await ledger.is_posted(key) for key in KEYS]):
            return True
        await asyncio.sleep(0.05)
    return False


async def repetition(box: Sandbox, number: int, expected: list[str]) -> Counter[str]:
    """One repetition: three replicas, one or two kills of the claim holder, then the checks."""
    rng = random.Random(f"crash-{number}")
    total = len(CHANNELS) * len(expected)
    prefix = f"{box.prefix}{number}:"
    subscriptions = StateSubscriptions(RedisState(box.client, prefix=prefix))
    for sub in SUBSCRIPTIONS:
        await subscriptions.put_subscription(sub)
    fake = await start_fake_slack()
    epoch = time.time()
    names = ("r0", "r1", "r2")  # two can die; the last one finishes
    started = await asyncio.gather(*(spawn(box, prefix, fake, epoch, n) for n in names))
    replicas = dict(zip(names, started, strict=True))
    kills = 0
    try:
        for _ in range(rng.choice((1, 2))):
            # a kill leaves at least three parts a thread to go: the random pause below
            # (at most two paces) cannot reach the end of the threads
            target = rng.randint(1, total - 3 * len(CHANNELS))
            await fake.wait_until(lambda t=target: len(fake.posts) >= t, within=60)
            # a random moment of the posting cycle, not the one right after a post landed
            await asyncio.sleep(rng.uniform(0, 2 * PACE_S))
            owner = await holder(box, prefix)
            if owner is None or owner not in replicas:
                continue
            victim = replicas.pop(owner)
            victim.kill()
            await victim.wait()
            kills += 1
        ledger = RedisLedger(box.client, prefix=prefix)
        assert await all_posted(ledger, within=60), f"repetition {number}"
    finally:
        for proc in replicas.values():
            proc.kill()
            await proc.wait()
        await stop_fake_slack(fake)
    return checked(fake, expected, number, kills)


def checked(fake: FakeSlack, expected: list[str], number: int, kills: int) -> Counter[str]:
    """Every channel's thread complete and in order under one parent; the repeats counted."""
    figures: Counter[str] = Counter(kills=kills, parts=len(CHANNELS) * len(expected))
    for channel in CHANNELS:
        posts = [p for p in fake.posts if p["channel"] == channel]
        texts = [p["text"] for p in posts]
        assert [text for text, _ in groupby(texts)] == expected, (number, channel)
        parents = [p for p in posts if "thread_ts" not in p]
        replies = [p for p in posts if "thread_ts" in p]
        assert {r["thread_ts"] for r in replies} == {parents[-1]["_ts"]}
        figures["repeats"] += len(texts) - len(expected)
        figures["parents_doubled"] += len(parents) - 1
    # a kill interrupts each thread in flight at most once: one repeat per thread a kill
    assert figures["repeats"] <= kills * len(CHANNELS), (number, figures)
    return figures


@pytest.mark.slow
async def test_threads_killed_mid_post_are_completed_in_order_without_doubles() -> None:
    """30 repetitions, one or two `kill -9` each at random points of three threads: every thread
    ends complete and in order under one parent, and a part is repeated only when a kill fell
    between Slack accepting it and the ledger recording it (counted; at most once a thread a
    kill)."""
    digest = await sample_digest()
    post = render_slack(messages.daily_post(digest, late=False, quiet=False))
    expected = [message.get("text", "") for message in (post.parent, *post.replies)]
    figures: Counter[str] = Counter()
    async with sandbox() as box:
        for first in range(0, REPETITIONS, AT_ONCE):
            batch = range(first, min(first + AT_ONCE, REPETITIONS))
            for found in await asyncio.gather(*(repetition(box, n, expected) for n in batch)):
                figures.update(found)
    print(
        f"\ncrash test: {REPETITIONS} repetitions, {figures['kills']} kills -9 mid-thread, "
        f"{figures['parts']} parts expected; parts repeated (accepted, unrecorded): "
        f"{figures['repeats']}, of them parents: {figures['parents_doubled']}"
    )
    assert figures["kills"] >= REPETITIONS


COMMAND_REPETITIONS = 15


async def thread_holder(box: Sandbox, prefix: str) -> str | None:
    """The owner of a live claim on a command thread, if any."""
    async for key in box.client.scan_iter(match=f"{prefix}ledger:cmd:*"):
        if key.endswith(b":parts"):
            continue
        value = await box.client.get(key)
        if value is not None and value.startswith(b"c|"):
            return str(value.decode().split("|")[1])
    return None


async def threads_closed(box: Sandbox, prefix: str, within: float) -> bool:
    """Every command thread closed, each marked posted."""
    ledger = RedisLedger(box.client, prefix=prefix)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        keys = [
            key.decode().removeprefix(f"{prefix}ledger:")
            async for key in box.client.scan_iter(match=f"{prefix}ledger:cmd:*")
            if not key.endswith(b":parts")
        ]
        posted = [await ledger.is_posted(key) for key in keys]
        if len(keys) == len(CHANNELS) and all(posted) and not await ledger.open_threads():
            return True
        await asyncio.sleep(0.05)
    return False


async def command_repetition(box: Sandbox, number: int, expected: list[str]) -> Counter[str]:
    """One repetition: a replica answers three commands and is killed mid-thread; two others
    complete the threads (one of them killed too, sometimes)."""
    rng = random.Random(f"command-crash-{number}")
    prefix = f"{box.prefix}cmd{number}:"
    fake = await start_fake_slack()
    epoch = time.time()
    recoverers = {
        name: await spawn(box, prefix, fake, epoch, name, "recover") for name in ("r1", "r2")
    }
    asker = await spawn(box, prefix, fake, epoch, "r0", "command", *CHANNELS)
    kills = 0
    try:
        # every channel's thread is open (its parent is out) before the kill
        await fake.wait_until(
            lambda: {p["channel"] for p in fake.posts} >= set(CHANNELS), within=60
        )
        total = len(CHANNELS) * len(expected)
        target = rng.randint(len(CHANNELS), total - 3 * len(CHANNELS))
        await fake.wait_until(lambda: len(fake.posts) >= target, within=60)
        await asyncio.sleep(rng.uniform(0, 2 * PACE_S))
        asker.kill()
        await asker.wait()
        kills += 1
        if rng.random() < 0.5:  # the replica that took over dies too
            await fake.wait_until(lambda: len(fake.posts) >= target + 2, within=60)
            owner = await thread_holder(box, prefix)
            if owner in recoverers:
                victim = recoverers.pop(owner)
                victim.kill()
                await victim.wait()
                kills += 1
        assert await threads_closed(box, prefix, within=60), f"repetition {number}"
    finally:
        for proc in (asker, *recoverers.values()):
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        await stop_fake_slack(fake)
    return checked(fake, expected, number, kills)


@pytest.mark.slow
async def test_command_threads_killed_mid_post_are_completed_by_another_replica() -> None:
    """`/vllm-report today` in three channels, the answering replica killed (`kill -9`) at a
    random point of the threads, and in half the repetitions the replica completing them too:
    every thread ends complete and in order under one parent."""
    digest = await sample_digest()
    post = command_post(digest, site_url=None)
    expected = [message.get("text", "") for message in (post.parent, *post.replies)]
    figures: Counter[str] = Counter()
    async with sandbox() as box:
        for first in range(0, COMMAND_REPETITIONS, AT_ONCE):
            batch = range(first, min(first + AT_ONCE, COMMAND_REPETITIONS))
            found = await asyncio.gather(*(command_repetition(box, n, expected) for n in batch))
            for one in found:
                figures.update(one)
    print(
        f"\ncommand crash test: {COMMAND_REPETITIONS} repetitions, {figures['kills']} kills -9 "
        f"mid-thread, {figures['parts']} parts expected; parts repeated (accepted, unrecorded): "
        f"{figures['repeats']}, of them parents: {figures['parents_doubled']}"
    )
    assert figures["kills"] >= COMMAND_REPETITIONS
