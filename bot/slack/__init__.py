"""The Slack front end: ``/vllm-report``, mentions and DMs, in Socket Mode or HTTP mode."""

from bot.slack.app import COMMAND, build_slack_app
from bot.slack.dedup import Claims, MemoryClaims
from bot.slack.handlers import SlackBot
from bot.slack.limits import violations
from bot.slack.mrkdwn import escape, link
from bot.slack.post import SlackPoster
from bot.slack.render import SlackPost, render_answer, render_slack
from bot.slack.run import HttpServer, run_http, run_socket_mode, start_http

__all__ = [
    "COMMAND",
    "Claims",
    "HttpServer",
    "MemoryClaims",
    "SlackBot",
    "SlackPost",
    "SlackPoster",
    "build_slack_app",
    "escape",
    "link",
    "render_answer",
    "render_slack",
    "run_http",
    "run_socket_mode",
    "start_http",
    "violations",
]
