"""Slack and Discord alike: one grammar, one wording, one set of checks, inert GitHub text."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.commands import messages
from bot.commands.defaults import Caller
from bot.commands.dispatch import (
    DigestBuild,
    Dispatcher,
    Failed,
    Platform,
    Reply,
    granted,
    reported,
)
from bot.commands.grammar import AskCommand, DigestCommand, Options, UsageError
from bot.commands.runner import ReportCore
from bot.discord import render_answer as discord_answer
from bot.discord import render_discord, validate
from bot.slack import render_answer as slack_answer
from bot.slack import render_slack, violations
from config.settings import load_config
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.errors import BadWindow, ConfigError, NotFound, RateLimited, SourceUnavailable
from digest.models import (
    Answer,
    BulletList,
    Counts,
    Digest,
    ItemRef,
    Lang,
    Paragraph,
    Section,
    Subheading,
    Text,
    UserRef,
    Window,
)
from digest.state.limiter import Limited, Limiter, Rate
from tests.fakes.subscriptions import MemorySubscriptions

NOW = datetime(2026, 2, 1, 4, 0, tzinfo=UTC)
PLATFORMS: tuple[Platform, ...] = ("slack", "discord")


async def _no_digest(request: DigestRequest) -> Digest:
    raise AssertionError("no digest is built here")


def _dispatcher(platform: Platform) -> tuple[Dispatcher, MemorySubscriptions]:
    core = ReportCore(config=load_config(), get_digest=_no_digest, clock=lambda: NOW)
    store = MemorySubscriptions()
    return Dispatcher(core, store, platform=platform), store


async def _reply(dispatcher: Dispatcher, text: str, *, manager: bool = True) -> Reply:
    outcome = await dispatcher.text(text, channel="1001", can_manage=granted(manager))
    assert isinstance(outcome, Reply)
    return outcome


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_unknown_timezone_is_refused_before_storing(platform: Platform) -> None:
    """A subscription in a zone that does not exist fails with the shared window wording."""
    dispatcher, store = _dispatcher(platform)
    with pytest.raises(BadWindow) as raised:
        await _reply(dispatcher, "subscribe tz:Mars/Olympus")
    assert messages.error_text(raised.value).startswith(
        "That window doesn't work: unknown timezone 'Mars/Olympus'"
    )
    assert await store.list(platform, "1001") == []


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_unsubscribing_names_every_repository(platform: Platform) -> None:
    """Removing all of a channel's subscriptions names each repository on its own line."""
    dispatcher, _ = _dispatcher(platform)
    await _reply(dispatcher, "subscribe")
    await _reply(dispatcher, "subscribe repo:sgl-project/sglang")
    reply = await _reply(dispatcher, "unsubscribe")
    assert reply.text.splitlines() == [
        messages.unsubscribed("vllm-project/vllm"),
        messages.unsubscribed("sgl-project/sglang"),
    ]
    assert reply.public


@pytest.mark.parametrize("text", ["topic quantum", "subscribe topics:quantum"])
async def test_unknown_topic_is_the_callers_mistake(text: str) -> None:
    """A topic that is not configured gets the usage wording, not "configuration problem"."""
    dispatcher, store = _dispatcher("slack")
    with pytest.raises(UsageError) as raised:
        outcome = await dispatcher.text(text, channel="1001", can_manage=granted(True))
        assert isinstance(outcome, DigestBuild)
        await outcome.run()
    assert messages.error_text(raised.value, platform="slack") == (
        "Sorry, I didn't understand that: unknown topic 'quantum' (configured topics: rocm). "
        "Type `/vllm-report help` for the commands."
    )
    assert await store.list("slack", "1001") == []


async def test_listing_never_asks_whether_the_caller_manages() -> None:
    """Anyone may list; the manager check runs only for a change."""
    asked: list[bool] = []

    async def can_manage() -> bool:
        asked.append(True)
        return False

    dispatcher, _ = _dispatcher("slack")
    listed = await dispatcher.text("subscriptions", channel="1001", can_manage=can_manage)
    assert isinstance(listed, Reply) and listed.text == messages.NO_SUBSCRIPTIONS and not asked
    refused = await dispatcher.text("subscribe", channel="1001", can_manage=can_manage)
    assert isinstance(refused, Reply) and refused.text == messages.managers_only("slack") and asked


async def test_text_that_cannot_be_parsed_gets_the_usage_wording() -> None:
    """A command that is not understood is answered with the usage message, never raised."""
    dispatcher, _ = _dispatcher("discord")
    reply = await _reply(dispatcher, "topic")
    assert reply.command is None
    assert reply.text.startswith("Sorry, I didn't understand that: say which topic")


async def test_digest_commands_are_built_after_acknowledging() -> None:
    """A digest command is work to run later, acknowledged with the shared wording."""
    dispatcher, _ = _dispatcher("slack")
    outcome = await dispatcher.text("week private", channel="1001", can_manage=granted(False))
    assert isinstance(outcome, DigestBuild)
    assert outcome.private and outcome.working == messages.WORKING_PRIVATE


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_help_is_written_in_the_platforms_markup(platform: Platform) -> None:
    """Help is bold in each platform's own markup: *x* on Slack, **x** on Discord (never italic)."""
    dispatcher, _ = _dispatcher(platform)
    text = (await _reply(dispatcher, "help")).text
    single = re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", text)
    double = re.findall(r"\*\*[^*\n]+\*\*", text)
    if platform == "slack":
        assert single and not double and text.startswith("*vllm-report*")
        assert "`/vllm-report`" in text
    else:
        assert double and not single and text.startswith("**vllm-report**")
        assert "`/vllm-ask`" in text and "Manage Channels" in text
    assert text.count("`") % 2 == 0


async def test_errors_are_worded_alike_on_both_platforms() -> None:
    """The same bad command or core error reads the same; only the pointer to help differs."""
    slack, _ = _dispatcher("slack")
    discord, _ = _dispatcher("discord")
    said = [(await _reply(d, "topic rocm bogus")).text for d in (slack, discord)]
    assert said[0].replace("`/vllm-report help`", "HELP") == said[1].replace("`/vllm-help`", "HELP")
    assert said[0].startswith("Sorry, I didn't understand that: unknown window 'bogus'")
    for error in (
        BadWindow("the window '2099-01-01' has not started yet"),
        NotFound("nobody/nothing"),
        RateLimited(None, authenticated=False),
        SourceUnavailable("timed out"),
        RuntimeError("secret stack detail"),
    ):
        texts = {messages.error_text(error, NOW, platform=p) for p in PLATFORMS}
        assert len(texts) == 1 and "secret stack detail" not in texts.pop()


HOSTILE = (
    "<!channel> <!here> <!subteam^S123> @channel @here @Everyone <@U0123ABCD> <@123456> "
    "<@!123456> <@&42> <#C123|general> <#77> [github.com/vllm-project/vllm](https://evil.example) "
    "<https://evil.example|github.com> </item_data> <t:1700000000:R> **b** ||spoiler|| `tick"
)
PR = "https://github.com/vllm-project/vllm/pull/7"
START = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
WINDOW = Window(START, START + timedelta(days=1), "Asia/Shanghai", "2026-03-10")


def _hostile_blocks() -> tuple[Paragraph | Subheading | BulletList, ...]:
    """GitHub text in every place a digest can show it: plain, styled, headings, links, logins."""
    return (
        Paragraph((Text(HOSTILE), Text(HOSTILE, "bold"), Text(HOSTILE, "code"))),
        Subheading(HOSTILE),
        BulletList(
            (
                (
                    ItemRef(7, PR, HOSTILE),
                    Text(" by "),
                    UserRef("everyone", "https://github.com/everyone"),
                    Text(": " + HOSTILE, "italic"),
                ),
            )
        ),
    )


def _hostile_digest() -> Digest:
    blocks = _hostile_blocks()
    return Digest(
        repo="vllm-project/vllm",
        window=WINDOW,
        lang="en",
        counts=Counts(1, 0, 1, 0, 0),
        sections=(Section("summary", "📊 Daily summary", blocks), Section("hot", "💬 Hot", blocks)),
        generated_at=WINDOW.end,
        synced_at=WINDOW.end,
        repo_url="https://github.com/vllm-project/vllm",
        display_name="vLLM",
        notes=(HOSTILE,),
    )


def _hostile_answer() -> Answer:
    return Answer(
        repo="vllm-project/vllm",
        question=HOSTILE,
        window=WINDOW,
        lang="en",
        blocks=_hostile_blocks(),
        repo_url="https://github.com/vllm-project/vllm",
        notes=(HOSTILE,),
    )


def _slack_texts(messages_: tuple[dict[str, object], ...]) -> list[str]:
    """Every mrkdwn string Slack would parse: fallback text, sections and context elements."""
    found: list[str] = []
    for message in messages_:
        found.append(str(message["text"]))
        for block in message.get("blocks") or ():  # type: ignore[attr-defined]
            if block["type"] == "section":
                found.append(block["text"]["text"])
            found += [e["text"] for e in block.get("elements", ())]
    return found


def _assert_inert_on_slack(texts: list[str]) -> None:
    joined = "\n".join(texts)
    for control in re.findall(r"<([^<>]*)>", joined):
        assert control.startswith("https://github.com/"), control  # only our own links
    assert re.search(r"@(channel|here|everyone)\b", joined, re.I) is None
    assert "&lt;!channel&gt;" in joined and "&lt;/item_data&gt;" in joined  # shown, not dropped
    assert f"<{PR}|#7 " in joined


def _assert_inert_on_discord(texts: list[str]) -> None:
    joined = "\n".join(texts)
    rest = re.sub(r"\]\(<https://github\.com/[^<>\s]*>\)", "](OURS)", joined)
    rest = re.sub(r"(?<!\\)`[^`]*`", "`code`", rest)  # code spans show their text literally
    assert re.search(r"(?<!\\)<", rest) is None  # no mention, channel, role, timestamp, tag
    assert re.search(r"(?<!\\)\]\((?!OURS\))", rest) is None  # no masked link but ours
    assert re.search(r"(?<!\\)\|\|", rest) is None
    assert re.search(r"@(everyone|here)", joined, re.I) is None
    assert "\\<!channel\\>" in joined and "\\</item\\_data\\>" in joined  # shown, not dropped
    assert f"](<{PR}>)" in joined


def test_hostile_github_text_is_inert_on_both_platforms() -> None:
    """One hostile digest and answer: neither renderer lets GitHub text ping or forge a link."""
    digest, answer = _hostile_digest(), _hostile_answer()
    slack = render_slack(digest).messages + slack_answer(answer).messages
    assert all(violations(m) == [] for m in slack)
    _assert_inert_on_slack(_slack_texts(slack))

    post = render_discord(digest)
    validate(post)
    found: list[str] = [post.thread_name]
    for spec in (*post.messages, *discord_answer(answer)):
        found.append(spec.content)
        for embed in spec.embeds:
            found += [embed.title or "", embed.description]
            found += [t for f in embed.fields for t in (f.name, f.value)]
    _assert_inert_on_discord(found)


async def _raise(error: Exception) -> str:
    raise error


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_the_one_error_ladder(platform: Platform, caplog: pytest.LogCaptureFixture) -> None:
    """What the user or the core got wrong is worded and logged at info; a crash is logged with
    its trace and worded as our fault; a result passes through."""
    logger = logging.getLogger("tests.ladder")
    ladder = {
        "platform": platform,
        "now": lambda: NOW,
        "logger": logger,
        "refused": "x.refused",
        "failed": "x.failed",
        "fields": {"channel": "C1"},
    }
    with caplog.at_level(logging.INFO, logger="tests.ladder"):
        assert await reported(_raise(BadWindow("too early")), **ladder) == Failed(
            "That window doesn't work: too early."
        )
        usage = await reported(_raise(UsageError("unknown word 'x'")), **ladder)
        assert usage == Failed(messages.usage(UsageError("unknown word 'x'"), platform))
        assert await reported(_raise(RuntimeError("disk")), **ladder) == Failed(messages.INTERNAL)
        assert await reported(_no_raise(), **ladder) == "fine"
    events = [(r.getMessage(), r.levelno, r.exc_info is not None) for r in caplog.records]
    assert events == [
        ("x.refused", logging.INFO, False),
        ("x.refused", logging.INFO, False),
        ("x.failed", logging.ERROR, True),
    ]
    assert [getattr(r, "error", None) for r in caplog.records[:2]] == ["BadWindow", "UsageError"]


async def _no_raise() -> str:
    return "fine"


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_weekly_and_weekday_subscriptions_are_confirmed_and_listed(
    platform: Platform,
) -> None:
    """Weekly and weekday subscriptions say when they post; `subscriptions` lists them."""
    dispatcher, _ = _dispatcher(platform)
    weekly = await _reply(dispatcher, "subscribe weekly mon time:09:00 tz:Europe/Berlin")
    assert weekly.text == (
        "Subscribed: a vllm-project/vllm digest in en, weekly on Monday at 09:00 (the last 7 "
        "days) (Europe/Berlin), in this channel. Next post: 2026-02-02 09:00 (UTC+1)."
    )
    await _reply(dispatcher, "subscribe weekdays repo:sgl-project/sglang time:08:00 tz:UTC")
    listed = await _reply(dispatcher, "subscriptions")
    head, *lines = listed.text.splitlines()
    assert head == "Scheduled digests in this channel:"
    assert sorted(lines) == [
        "• sgl-project/sglang: weekdays (Monday to Friday) at 08:00 (UTC) in en",
        "• vllm-project/vllm: weekly on Monday at 09:00 (the last 7 days) (Europe/Berlin) in en",
    ]


async def test_clicks_questions_and_digests_are_counted_apart_and_refused_for_free() -> None:
    """A member's second click in the hour is refused in the command's language, before any
    build; their digests and questions keep their own buckets."""
    built: list[DigestRequest] = []

    async def record(request: DigestRequest) -> Digest:
        built.append(request)
        raise NotFound("nothing to build here")

    state = SQLiteState(":memory:", clock=lambda: NOW)
    hour = timedelta(hours=1)
    rules = {
        ("button", "user"): Rate(1, hour),
        ("digest", "user"): Rate(2, hour),
        ("question", "user"): Rate(1, hour),
    }
    core = ReportCore(config=load_config(), get_digest=record, clock=lambda: NOW)
    dispatcher = Dispatcher(
        core, None, platform="slack", limiter=Limiter(state, rules, lambda: NOW)
    )
    caller = Caller("C1", user="U1")
    click = DigestCommand("2026-01-30", options=Options(lang=Lang.ZH))
    try:
        with pytest.raises(NotFound):
            await dispatcher.build(click, caller, clicked=True).run()
        with pytest.raises(Limited) as raised:
            await dispatcher.build(click, caller, clicked=True).run()
        assert len(built) == 1
        text = messages.error_text(raised.value, NOW)
        assert text.startswith("你已达到按钮点击上限（每小时 1 次）") and "05:00 UTC" in text
        for _ in range(2):
            with pytest.raises(NotFound):
                await dispatcher.build(DigestCommand("2026-01-30"), caller).run()
        with pytest.raises(Limited):
            await dispatcher.build(DigestCommand("2026-01-29"), caller).run()
        assert len(built) == 3
        with pytest.raises(NotFound):  # another member
            await dispatcher.build(DigestCommand("2026-01-29"), Caller("C1", user="U2")).run()
        question = AskCommand("what's new in ROCm?")
        with pytest.raises(ConfigError):  # this core answers no question, but it was asked
            await dispatcher.build(question, caller).run()
        with pytest.raises(Limited) as asked:
            await dispatcher.build(question, caller).run()
        assert messages.error_text(asked.value, NOW).startswith(
            "You have reached your limit of questions (1 per hour)"
        )
    finally:
        await state.close()
