"""The in-memory subscription storage the Discord tests use."""

from __future__ import annotations

from digest.schedule.subscription import Subscription
from tests.fakes.subscriptions import MemorySubscriptions


def _sub(channel: str, repo: str) -> Subscription:
    return Subscription(
        platform="discord", channel=channel, repo=repo, time="09:00", timezone="UTC"
    )


async def test_add_list_remove() -> None:
    """Subscriptions are per channel and repository; removal names what it removed."""
    subs = MemorySubscriptions()
    await subs.add(_sub("1", "a/b"))
    await subs.add(_sub("1", "c/d"))
    await subs.add(_sub("2", "a/b"))
    await subs.add(_sub("1", "A/B"))  # replaces, whatever the case
    assert [s.repo for s in await subs.list("discord", "1")] == ["A/B", "c/d"]
    assert await subs.remove("discord", "1", "c/d") == ["c/d"]
    assert await subs.remove("discord", "1") == ["A/B"]
    assert await subs.list("discord", "1") == []
    assert len(await subs.list("discord", "2")) == 1
