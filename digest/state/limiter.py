"""Rate limits on what a chat member, a channel or any other client can make the bot do.

Token buckets in the shared state (:meth:`~digest.state.base.SharedState.take`), so every
replica counts alike. A rule is a kind of work and a scope: ``("digest", "user")`` allows
a member so many digests in a period. Checking costs one state call per scope and no GitHub
request or model call::

    limiter = Limiter(state, {("digest", "user"): Rate(10, timedelta(minutes=10))}, clock)
    refusal = await limiter.take("digest", {"user": "slack:U1", "channel": "slack:C1"})
    if refusal is not None:
        raise Limited(refusal)  # or say digest.i18n.limits.refusal_text(refusal, lang)

The scopes are taken in the order given, and a refused one stops there: a member over their
own limit spends nothing of their channel's. With the shared state unreachable, nothing is
limited (logged once per outage).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from digest.errors import DigestError, StateUnavailable
from digest.models import Lang
from digest.state.base import SharedState

log = logging.getLogger(__name__)

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smhd])\s*$", re.I)
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True, slots=True)
class Rate:
    """``count`` takes per ``period``, at once or spread out (a bucket of ``count`` tokens)."""

    count: int
    period: timedelta

    def __post_init__(self) -> None:
        if self.count < 1 or self.period <= timedelta(0):
            raise ValueError(f"a rate needs a positive count and period, not {self}")

    @classmethod
    def parse(cls, text: str) -> Rate | None:
        """``"10/10m"``, ``"30/h"``, ``"100/1d"``; ``"off"`` (or ``"0"``) is no limit."""
        if text.strip().lower() in ("off", "0", "none", ""):
            return None
        found = _RATE.match(text)
        if found is None:
            raise ValueError(f"{text!r} is not a rate (use COUNT/PERIOD, e.g. 10/10m, or off)")
        count, n, unit = int(found[1]), int(found[2] or 1), found[3].lower()
        return cls(count, timedelta(seconds=n * _UNIT[unit]))


@dataclass(frozen=True, slots=True)
class Refusal:
    """A take that a rule refused: which, and when a token is back."""

    kind: str  # "digest" | "question" | "button" | another kind of work
    scope: str  # "user" | "channel" | another scope
    rate: Rate
    retry_at: datetime


class Limited(DigestError):
    """A request a rate limit refused; ``lang`` is the language to say it in (the words:
    :func:`digest.i18n.limits.refusal_text`)."""

    def __init__(self, refusal: Refusal, lang: Lang = Lang.EN) -> None:
        super().__init__(f"rate limit of {refusal.kind} per {refusal.scope}")
        self.refusal = refusal
        self.lang = lang


Rules = Mapping[tuple[str, str], Rate]


class Limiter:
    """Takes a token for a kind of work from each scope's bucket; see the module docstring."""

    def __init__(
        self, state: SharedState, rules: Rules, clock: Callable[[], datetime], *, prefix: str = ""
    ) -> None:
        self._state = state
        self._rules = dict(rules)
        self._clock = clock
        self._prefix = prefix
        self._down = False
        self.refused = 0  # takes refused since the start (for /metrics)

    @property
    def rules(self) -> Rules:
        return dict(self._rules)

    async def take(self, kind: str, subjects: Mapping[str, str | None]) -> Refusal | None:
        """Take one ``kind`` for each ``scope: subject`` with a rule (a ``None`` subject is
        skipped); the first refusal, or ``None`` when every bucket gave a token."""
        for scope, subject in subjects.items():
            rate = self._rules.get((kind, scope))
            if rate is None or not subject:
                continue
            key = f"limit:{self._prefix}{kind}:{scope}:{subject}"
            try:
                wait = await self._state.take(key, rate.count, rate.period)
            except StateUnavailable:
                if not self._down:
                    log.warning("limits.unavailable", extra={"kind": kind})
                self._down = True
                return None
            self._down = False
            if wait is not None:
                self.refused += 1
                refusal = Refusal(kind, scope, rate, self._clock() + wait)
                log.info(
                    "limits.refused",
                    extra={"kind": kind, "scope": scope, "retry_at": refusal.retry_at.isoformat()},
                )
                return refusal
        return None
