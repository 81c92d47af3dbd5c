"""What the Slack listeners do: parse, acknowledge, build in the background, post, report errors."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.commands import messages
from bot.commands.buttons import ButtonRefused, DigestButtons
from bot.commands.defaults import Caller, DefaultsStore
from bot.commands.dispatch import (
    AnswerBuild,
    CanManage,
    Core,
    DigestBuild,
    Dispatcher,
    Failed,
    RateLimiter,
    reported,
)
from bot.commands.grammar import HelpCommand, UsageError
from bot.commands.subscriptions import Directory, Subscriptions, overview
from bot.commands.tracking import UNTRACKED, ThreadJournal, ThreadTracker, open_thread, posting
from bot.slack.dedup import Claims, Deliveries
from bot.slack.home import home_view, latest_days, submitted, subscribe_modal
from bot.slack.jobs import Jobs
from bot.slack.managers import is_manager
from bot.slack.mrkdwn import escape
from bot.slack.people import conversations_of, slack_caller
from bot.slack.post import ChartFn, SlackPoster, command_post, slack_error
from bot.slack.render import SlackPost, render_answer
from digest.models import Lang
from digest.render.charts import ChartImage

log = logging.getLogger(__name__)

T = TypeVar("T")

_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
_NOT_HERE = {"not_in_channel", "channel_not_found", "is_archived"}

Track = Callable[[str, str | None], Awaitable[ThreadTracker]]
"""Opens the journal's record of a thread about to go to (channel, thread it goes into)."""


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a request came from, and so where its answers and errors go."""

    channel: str
    user: str
    thread_ts: str | None = None  # mentions and DMs are answered in their thread
    response_url: str | None = None  # slash commands answer errors through it
    im: bool = False
    team: str | None = None  # the workspace


def ack_reply(text: str, *, public: bool = False) -> dict[str, Any]:
    """The arguments of an ``ack`` showing ``text`` to the caller only, or to the channel."""
    return {"response_type": "in_channel" if public else "ephemeral", "text": text}


def message_text(raw: str | None) -> str:
    """The command in a Slack message: mentions removed, entities decoded."""
    text = _MENTION.sub(" ", raw or "")
    return " ".join(text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").split())


class SlackBot:
    """Turns slash commands, mentions and DMs into posts.

    ``poster`` paces every message of the app; the daily posts go through it too.
    """

    def __init__(
        self,
        core: Core,
        poster: SlackPoster,
        *,
        clock: Callable[[], datetime],
        claims: Claims | None = None,
        subscriptions: Subscriptions | None = None,
        jobs: Jobs | None = None,
        defaults: DefaultsStore | None = None,
        buttons: DigestButtons | None = None,
        directory: Directory | None = None,
        chart: ChartFn | None = None,
        threads: ThreadJournal | None = None,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.poster = poster
        self._threads = threads
        self._core = core
        self._directory = directory
        self._site_url = core.site_url
        self._buttons = buttons
        self._chart = chart
        self._clock = clock
        self._deliveries = Deliveries(claims)
        self._dispatch = Dispatcher(
            core, subscriptions, platform="slack", defaults=defaults, limiter=limiter
        )
        self.jobs = jobs or Jobs()

    # -- entry points (called by the bolt listeners) ------------------------------------------

    async def on_command(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The acknowledgement of a slash command; the work goes on in the background."""
        key = (
            body.get("trigger_id")
            or f"{body.get('channel_id')}:{body.get('user_id')}:"
            f"{body.get('text')}:{body.get('command_ts', '')}"
        )
        if not await self._deliveries.first(f"command:{key}"):
            log.info("slack.delivery_duplicate", extra={"kind": "command"})
            return {}
        origin = Origin(
            channel=str(body.get("channel_id", "")),
            user=str(body.get("user_id", "")),
            response_url=body.get("response_url"),
            team=body.get("team_id"),
        )
        outcome = await self._reported(
            self._dispatch.text(
                message_text(body.get("text")),
                channel=origin.channel,
                can_manage=self._manager(origin),
                caller=self._caller(origin),
            ),
            origin,
            failed="slack.command_failed",
        )
        if isinstance(outcome, Failed):
            return ack_reply(outcome.text)
        if outcome.command is not None:
            log.info(
                "slack.command",
                extra={"command": type(outcome.command).__name__, "channel": origin.channel},
            )
        if isinstance(outcome, DigestBuild | AnswerBuild):
            limits: Awaitable[DigestBuild | AnswerBuild] = outcome.taken()
            taken = await self._reported(limits, origin, failed="slack.command_failed")
            if isinstance(taken, Failed):  # over a rate limit: said in the acknowledgement
                return ack_reply(taken.text)
            self.jobs.spawn(
                self._guard(self._build(taken, origin), origin), name=f"slack:{origin.channel}"
            )
            return ack_reply(taken.working)
        return ack_reply(outcome.text, public=outcome.public)

    async def on_message(self, body: Mapping[str, Any], event: Mapping[str, Any]) -> None:
        """A mention of the bot or a direct message: answered in its thread."""
        if event.get("subtype") or event.get("bot_id") or not event.get("user"):
            return
        channel, ts = str(event.get("channel", "")), str(event.get("ts", ""))
        keys = [f"message:{channel}:{ts}"]
        if body.get("event_id"):
            keys.insert(0, f"event:{body['event_id']}")
        if not await self._deliveries.first(*keys):
            log.info(
                "slack.delivery_duplicate",
                extra={"kind": "event", "event_id": body.get("event_id")},
            )
            return
        origin = Origin(
            channel=channel,
            user=str(event["user"]),
            thread_ts=str(event.get("thread_ts") or ts),
            im=event.get("channel_type") == "im",
            team=body.get("team_id") or event.get("team"),
        )
        log.info("slack.message", extra={"channel": channel, "im": origin.im})
        self.jobs.spawn(
            # A bare mention (or an empty DM) asks for help, as on Discord.
            self._guard(self._message(message_text(event.get("text")) or "help", origin), origin),
            name=f"slack:{channel}:{ts}",
        )

    # -- the work ------------------------------------------------------------------------------

    async def _guard(self, work: Awaitable[None], origin: Origin) -> None:
        """Run ``work``; a failure of ours is logged and reported to the user in plain words."""
        done = await self._reported(work, origin, failed="slack.job_failed")
        if isinstance(done, Failed):
            await self._tell(origin, done.text)

    def _reported(
        self, work: Awaitable[T], origin: Origin, *, failed: str
    ) -> Awaitable[T | Failed]:
        return reported(
            work,
            platform="slack",
            now=self._clock,
            logger=log,
            refused="slack.request_failed",
            failed=failed,
            fields={"channel": origin.channel},
        )

    async def _message(self, text: str, origin: Origin) -> None:
        outcome = await self._dispatch.text(
            text,
            channel=origin.channel,
            can_manage=self._manager(origin),
            caller=self._caller(origin),
        )
        if isinstance(outcome, DigestBuild | AnswerBuild):
            await self._build(outcome, origin)
        elif outcome.public or isinstance(outcome.command, HelpCommand):
            await self.poster.post(
                origin.channel, {"text": outcome.text}, thread_ts=origin.thread_ts
            )
        else:
            await self._tell(origin, outcome.text)

    async def on_button(self, body: Mapping[str, Any]) -> None:
        """A click on a digest's button (already acknowledged): its digest, posted the same way
        as the command's, where the button was; a forged or stale value is refused."""
        action = (body.get("actions") or [{}])[0]
        container = body.get("container") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        user = str((body.get("user") or {}).get("id") or "")
        key = f"action:{channel}:{container.get('message_ts')}:{action.get('action_ts')}:{user}"
        if not await self._deliveries.first(key):
            log.info("slack.delivery_duplicate", extra={"kind": "action"})
            return
        origin = Origin(
            channel=channel,
            user=user,
            response_url=body.get("response_url") or None,
            im=channel.startswith("D"),
            team=(body.get("team") or {}).get("id"),
        )
        log.info("slack.button", extra={"channel": channel, "action": action.get("action_id")})
        value = str(action.get("value") or "")
        self.jobs.spawn(self._guard(self._pressed(value, origin), origin), name=f"slack:{key}")

    # -- the Home tab --------------------------------------------------------------------------

    async def on_home_opened(self, event: Mapping[str, Any]) -> None:
        """Publish the user's Home tab: the subscriptions of the channels and DMs they are in,
        the latest digests, the subscribe button."""
        if event.get("tab") not in (None, "home") or not event.get("user"):
            return
        config = self._core.config
        repo = config.default_repo
        conf = config.repo(repo)
        found = await self._directory() if self._directory is not None else []
        if found:  # only the channels and DMs the viewer is in: private ones stay private
            member = await conversations_of(self.poster.client, str(event["user"]))
            found = [s for s in found if s.channel in member]
        gone = await self._dispatch.lapsed(found)
        view = home_view(
            overview(found, "slack", self._clock(), lambda c: f"<#{escape(c)}>", gone),
            repo=repo,
            days=latest_days(self._clock(), conf.timezone, conf.day_start),
            site_url=self._site_url,
        )
        try:
            await self.poster.client.views_publish(user_id=str(event["user"]), view=view)
        except SlackApiError as exc:
            log.warning("slack.home_failed", extra={"error": slack_error(exc)})

    async def on_home_subscribe(self, body: Mapping[str, Any]) -> None:
        """The Home tab's button: open the subscribe modal, the time zone the user's own."""
        user = str((body.get("user") or {}).get("id") or "")
        caller = slack_caller(self.poster.client, "", user, (body.get("team") or {}).get("id"))
        lang = await self._dispatch.resolver.resolve(caller)
        view = subscribe_modal(timezone=await caller.timezone(), lang=lang.defaults.lang or Lang.EN)
        try:
            await self.poster.client.views_open(trigger_id=str(body.get("trigger_id")), view=view)
        except SlackApiError as exc:
            log.warning("slack.modal_failed", extra={"error": slack_error(exc)})

    async def on_subscribe_submitted(self, body: Mapping[str, Any]) -> dict[str, Any] | None:
        """The modal's submission does what ``subscribe`` does in the chosen channel: the
        arguments of the ``ack`` (errors shown in the modal), ``None`` when it closes."""
        user = str((body.get("user") or {}).get("id") or "")
        team = (body.get("team") or {}).get("id")
        try:
            channel, command = submitted(body.get("view") or {})
        except UsageError as exc:
            return {"response_action": "errors", "errors": {"channel": str(exc)}}
        origin = Origin(channel=channel, user=user, team=team)
        outcome = await self._reported(
            self._dispatch.subscription(
                command,
                channel=channel,
                can_manage=self._manager(origin),
                caller=self._caller(origin),
            ),
            origin,
            failed="slack.home_subscribe_failed",
        )
        if isinstance(outcome, Failed) or not outcome.public:
            return {"response_action": "errors", "errors": {"channel": outcome.text[:150]}}
        self.jobs.spawn(self._announce(origin, outcome.text), name=f"slack:home:{channel}")
        return None

    async def _announce(self, origin: Origin, text: str) -> None:
        try:
            await self.poster.post(origin.channel, {"text": text})
        except SlackApiError as exc:
            log.info("slack.announce_failed", extra={"error": slack_error(exc)})
            await self._tell(Origin(channel=origin.user, user=origin.user, im=True), text)
        await self.on_home_opened({"user": origin.user, "tab": "home"})

    async def _pressed(self, value: str, origin: Origin) -> None:
        try:
            if self._buttons is None:
                raise ButtonRefused(messages.BUTTON_STALE)
            command = self._buttons.signer.command(value)
        except ButtonRefused as exc:
            log.info("slack.button_refused", extra={"channel": origin.channel})
            await self._tell(origin, messages.button_refused(str(exc)))
            return
        await self._build(self._dispatch.build(command, self._caller(origin), clicked=True), origin)

    async def _build(self, build: DigestBuild | AnswerBuild, origin: Origin) -> None:
        if isinstance(build, AnswerBuild):
            await self._deliver(render_answer(await build.run()), origin, private=build.private)
            return
        request = await build.request()
        digest = await build.digest(request)
        post = command_post(digest, site_url=self._site_url, buttons=self._buttons)
        image = await self._chart(digest) if self._chart is not None else None

        async def track(channel: str, thread: str | None) -> ThreadTracker:
            return await open_thread(
                self._threads,
                platform="slack",
                channel=channel,
                user=origin.user,
                request=request,
                thread=thread,
            )

        await self._deliver(post, origin, private=build.private, image=image, track=track)

    def _caller(self, origin: Origin) -> Caller:
        return slack_caller(self.poster.client, origin.channel, origin.user, origin.team)

    def _manager(self, origin: Origin) -> CanManage:
        return lambda: is_manager(self.poster.client, origin.channel, origin.user)

    async def _deliver(
        self,
        post: SlackPost,
        origin: Origin,
        *,
        private: bool,
        image: ChartImage | None = None,
        track: Track | None = None,
    ) -> None:
        """Post ``post`` where it was asked for (or in a DM); ``image``, the digest's chart,
        goes first into its thread (an upload failure is logged, the text still goes out).
        With ``track``, the thread is kept in the journal part by part, so another replica
        completes it if this one dies."""
        channel, thread_ts = origin.channel, origin.thread_ts
        if private:
            try:
                channel, thread_ts = await self.poster.open_dm(origin.user), None
            except SlackApiError as exc:
                log.warning("slack.dm_failed", extra={"error": slack_error(exc)})
                await self._tell(origin, messages.CANNOT_DM)
                return
        tracker = await track(channel, thread_ts) if track is not None else UNTRACKED
        parent_out = False

        async def sent(index: int, ts: str) -> None:
            nonlocal parent_out
            parent_out = True
            await tracker.sent(index, ts)
            if index == 0 and image is not None:
                await self.poster.upload_chart(channel, thread_ts or ts, image)

        try:
            async with posting(tracker):
                await self.poster.post_thread(channel, post, thread_ts=thread_ts, sent=sent)
                if private and origin.thread_ts and not origin.im:
                    await self._tell(origin, messages.SENT_PRIVATE)
                log.info("slack.posted", extra={"channel": channel, "messages": len(post.messages)})
        except SlackApiError as exc:
            if private or parent_out or slack_error(exc) not in _NOT_HERE:
                raise
            log.info("slack.not_in_channel", extra={"channel": origin.channel})
            await self._tell(origin, messages.NOT_IN_CHANNEL)

    async def _tell(self, origin: Origin, text: str) -> None:
        """Show ``text`` to the requester only (in a DM, as a reply in the thread)."""
        try:
            if origin.response_url:
                webhook = AsyncWebhookClient(origin.response_url)
                await webhook.send(text=text, response_type="ephemeral", replace_original=False)
            elif origin.im:
                await self.poster.post(origin.channel, {"text": text}, thread_ts=origin.thread_ts)
            else:
                await self.poster.ephemeral(
                    origin.channel, origin.user, text, thread_ts=origin.thread_ts
                )
        except SlackApiError as exc:
            log.warning(
                "slack.tell_failed", extra={"channel": origin.channel, "error": slack_error(exc)}
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning(
                "slack.tell_failed", extra={"channel": origin.channel, "error": type(exc).__name__}
            )
