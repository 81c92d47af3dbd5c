"""What chat may follow: the caps, their words in zh and en, and the subscriptions the
scheduler sees once a repository lapsed."""

from __future__ import annotations

from bot.commands.following import CapReached, Caps, FollowedSubscriptions, refusal
from digest.errors import RepoRefused
from digest.models import Lang
from digest.schedule.subscription import Subscription
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.following import github_access
from tests.support.service import START


def _sub(channel: str, repo: str, workspace: str | None = "T1") -> Subscription:
    return Subscription("slack", channel, repo, "09:00", "UTC", workspace=workspace)


async def test_the_caps_count_channel_workspace_and_all_and_spare_a_replacement() -> None:
    """A channel's, a workspace's and the bot's cap are each met in turn; re-subscribing to a
    repository a channel already follows is never refused; a Discord DM has no workspace."""
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        following = rig.following(Caps(per_channel=2, per_workspace=3, total=4))
        for sub in (_sub("C1", "o/a"), _sub("C1", "o/b"), _sub("C2", "o/c")):
            await rig.subscriptions.put_subscription(sub)
        assert await following.cap_reached(_sub("C1", "o/z")) == CapReached("channel", 2)
        assert await following.cap_reached(_sub("C1", "O/A")) is None
        assert await following.cap_reached(_sub("C3", "o/z")) == CapReached("workspace", 3)
        assert await following.cap_reached(_sub("C3", "o/z", workspace="T2")) is None
        await rig.subscriptions.put_subscription(_sub("C9", "o/d", workspace=None))
        assert await following.cap_reached(_sub("D1", "o/z", workspace=None)) == CapReached(
            "total", 4
        )


def test_a_refusal_reads_naturally_in_both_languages() -> None:
    """The words name the cap or the reason, in Chinese and English."""
    assert CapReached("workspace", 50).text(Lang.ZH, "discord") == (
        "本服务器已有 50 个订阅，达到每个服务器的上限（50）。请先在某个频道取消一个。"
    )
    assert (
        CapReached("workspace", 50)
        .text(Lang.EN, "slack")
        .startswith("This workspace already has 50 subscriptions, the limit per workspace (50).")
    )
    private = RepoRefused("acme/secret", "private", lang=Lang.ZH)
    assert refusal(private, subscribing=True) == (
        "acme/secret 是私有仓库，而本机器人只关注允许列表中的私有仓库，因此不能在这里使用它。"
        "未保存任何订阅。"
    )
    off = RepoRefused("x/y", "not_allowed", allowed="vllm-project/*")
    assert refusal(off) == (
        "x/y is not on this bot's list of allowed repositories (allowed: vllm-project/*)."
    )


async def test_the_scheduler_sees_no_subscription_of_a_lapsed_repository() -> None:
    """Once a repository lapsed, its subscriptions stay stored but are not posted; they come
    back when it answers again."""
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        for sub in (_sub("C1", "o/gone"), _sub("C2", "o/gone"), _sub("C1", "o/here")):
            await rig.subscriptions.put_subscription(sub)
        posted = FollowedSubscriptions(rig.subscriptions, rig.access)
        for _ in range(3):
            await rig.access.missed("o/gone")
        assert [s.repo for s in await posted.all_subscriptions()] == ["o/here"]
        assert len(await posted.channel_subscriptions("slack", "C1")) == 2
        await rig.access.answered("o/gone")
        assert len(await posted.all_subscriptions()) == 3
