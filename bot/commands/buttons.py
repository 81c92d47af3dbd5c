"""Buttons on a digest's parent message: previous day, next day, other language, web page.

A button carries everything its click needs (window spec, language, repository) and an HMAC
of it (a configured scope's digest names the scope, ``@serving``; one over several repositories
named ad hoc lists them, ``a/b,c/d``), so a click works on any replica and after a restart, and
a forged or edited value is refused. The value fits Discord's 100-character ``custom_id``
(Slack allows 2,000); a button whose value would not fit is left out.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from bot.commands import messages
from bot.commands.grammar import DigestCommand, Options, UsageError, digest_command
from config.settings import AppConfig
from digest import i18n
from digest.errors import BadWindow
from digest.github.names import valid_repo
from digest.models import Digest, Lang
from digest.windows import parse_window, zone

PREFIX = "vr1"
MAX_VALUE = 100  # Discord's custom_id limit, the stricter of the two platforms
_SIG = 16  # hex characters of the HMAC kept


class ButtonRefused(UsageError):
    """A button value that was not made by this bot (or by an older version of it)."""


@dataclass(frozen=True, slots=True)
class Button:
    """One button: an action with a signed ``value``, or a link with a ``url``."""

    action: str  # "prev" | "next" | "lang" | "web"
    label: str
    value: str | None = None
    url: str | None = None
    disabled: bool = False


class ButtonSigner:
    """Signs and checks button values with a key every replica shares."""

    def __init__(self, key: bytes) -> None:
        if not key:
            raise ValueError("a button key must not be empty")
        self._key = key

    @classmethod
    def from_secret(cls, secret: str) -> ButtonSigner:
        """A signer keyed by a secret the deployment already has (e.g. the bot token)."""
        return cls(hashlib.sha256(b"vllm-report buttons\0" + secret.encode()).digest())

    def _mac(self, body: str) -> str:
        return hmac.new(self._key, body.encode(), hashlib.sha256).hexdigest()[:_SIG]

    def sign(self, spec: str, lang: Lang, repo: str) -> str | None:
        """The value of a button asking for ``spec`` in ``lang`` of ``repo`` (or of a scope,
        :func:`subject_of`); None if too long."""
        body = f"{PREFIX}|{spec}|{lang}|{repo}"
        value = f"{body}|{self._mac(body)}"
        return value if len(value) <= MAX_VALUE else None

    def command(self, value: str) -> DigestCommand:
        """The digest command of a clicked button; a forged or stale value is refused."""
        parts = value.split("|")
        if len(parts) != 5 or parts[0] != PREFIX:
            raise ButtonRefused(messages.BUTTON_STALE)
        body, mac = "|".join(parts[:4]), parts[4]
        if not hmac.compare_digest(self._mac(body), mac):
            raise ButtonRefused(messages.BUTTON_FORGED)
        _, spec, text, subject = parts[:4]
        lang = Lang.parse(text)
        if lang is None:
            raise ButtonRefused(messages.BUTTON_FORGED)
        if subject.startswith("@"):
            return digest_command(spec, None, None, Options(lang=lang, scope=subject[1:]))
        repos = tuple(subject.split(","))
        if not all(valid_repo(repo) for repo in repos):
            raise ButtonRefused(messages.BUTTON_FORGED)
        several = repos if len(repos) > 1 else ()
        return digest_command(spec, None, None, Options(repo=repos[0], lang=lang, repos=several))


def subject_of(digest: Digest) -> str:
    """What a button of ``digest`` names: its repository, ``@scope`` for a configured scope,
    or its repositories, ``a/b,c/d``."""
    if digest.scope:
        return f"@{digest.scope}"
    return ",".join(digest.repos) if digest.several else digest.repo


def _anchor(digest: Digest) -> date | None:
    """The report day a one-day digest shows; None for longer windows."""
    window = digest.window
    try:
        return date.fromisoformat(window.label)
    except ValueError:
        if window.days > 1:
            return None
        return window.start.astimezone(zone(window.timezone)).date()


def _future(day: date, digest: Digest, now: datetime, day_start: str) -> bool:
    try:
        parse_window(day.isoformat(), now=now, timezone=digest.window.timezone, day_start=day_start)
    except BadWindow:
        return True
    return False


def digest_buttons(
    digest: Digest,
    signer: ButtonSigner,
    *,
    now: datetime,
    day_start: str,
    page_url: str | None = None,
) -> tuple[Button, ...]:
    """The buttons of ``digest``'s parent: previous and next day (next disabled while it is in
    the future), the other language, and the web page when the site has one."""
    words = messages.button_words(digest.lang)
    other = i18n.other(digest.lang)
    found: list[Button] = []
    subject = subject_of(digest)
    day = _anchor(digest)
    if day is not None:
        before, after = day - timedelta(days=1), day + timedelta(days=1)
        if value := signer.sign(before.isoformat(), digest.lang, subject):
            found.append(Button("prev", words["prev"], value))
        if value := signer.sign(after.isoformat(), digest.lang, subject):
            found.append(
                Button(
                    "next", words["next"], value, disabled=_future(after, digest, now, day_start)
                )
            )
    spec = digest.window.label if digest.window.label else (day.isoformat() if day else "")
    if spec and (value := signer.sign(spec, other, subject)):
        found.append(Button("lang", words["lang"], value))
    if page_url:
        found.append(Button("web", words["web"], url=page_url))
    return tuple(found)


class DigestButtons:
    """The buttons of every digest a front end posts: signed with ``signer``, the next day
    judged by ``clock``, the web page from ``page_url`` (the site's, when it is published)."""

    def __init__(
        self,
        signer: ButtonSigner,
        config: AppConfig,
        clock: Callable[[], datetime],
        page_url: Callable[[Digest], str | None] | None = None,
    ) -> None:
        self.signer = signer
        self._config = config
        self._clock = clock
        self._page_url = page_url

    def __call__(self, digest: Digest) -> tuple[Button, ...]:
        page = self._page_url(digest) if self._page_url is not None else None
        day_start = self._config.repo(digest.repo).day_start
        if digest.scope and digest.scope in self._config.scopes:
            day_start = self._config.scopes[digest.scope].day_start or day_start
        return digest_buttons(
            digest, self.signer, now=self._clock(), day_start=day_start, page_url=page
        )
