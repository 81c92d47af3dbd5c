"""What may be followed: the refusals of a repository and of one subscription too many, and
the mark of a repository that stopped answering. key: (zh, en)."""

from __future__ import annotations

from collections.abc import Mapping

FOLLOWS: Mapping[str, tuple[str, str]] = {
    "follow.missing": (
        "在 GitHub 上找不到 {repo}：请检查 owner/name 的拼写（并确认它是公开仓库）。",
        "I couldn't find {repo} on GitHub: check the owner/name spelling (and that it is public).",
    ),
    "follow.not_stored": ("未保存任何订阅。", "Nothing was stored."),
    "follow.private": (
        "{repo} 是私有仓库，而本机器人只关注允许列表中的私有仓库，因此不能在这里使用它。",
        "{repo} is a private repository, and this bot follows private repositories only when "
        "they are on its allow-list, so it can't be used here.",
    ),
    "follow.not_allowed": (
        "{repo} 不在本机器人的仓库允许列表中（允许：{allowed}）。",
        "{repo} is not on this bot's list of allowed repositories (allowed: {allowed}).",
    ),
    "follow.cap.channel": (
        "本频道已有 {limit} 个订阅，达到每个频道的上限（{limit}）。"
        "请先用 `unsubscribe repo:owner/name` 取消一个。",
        "This channel already has {limit} subscriptions, the limit per channel ({limit}). "
        "Remove one first with `unsubscribe repo:owner/name`.",
    ),
    "follow.cap.workspace": (
        "本{workspace}已有 {limit} 个订阅，达到每个{workspace}的上限（{limit}）。"
        "请先在某个频道取消一个。",
        "This {workspace} already has {limit} subscriptions, the limit per {workspace} "
        "({limit}). Remove one in some channel first.",
    ),
    "follow.cap.total": (
        "本机器人已有 {limit} 个订阅，达到总上限（{limit}），暂时不能再添加。",
        "This bot already has {limit} subscriptions in all, its limit ({limit}), so it can't "
        "take another for now.",
    ),
    "follow.lapsed": (
        "（找不到该仓库，已不再关注）",
        " (repository not found; not followed any more)",
    ),
    "follow.workspace.slack": ("工作区", "workspace"),
    "follow.workspace.discord": ("服务器", "server"),
}
