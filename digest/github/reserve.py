"""A reserve of the GitHub budget for the daily posts.

Work a person asked for (a command, a question, a click) runs inside :func:`interactive`.
There, a request that would spend the hourly limit (the ``core`` resource) is not sent when
what is left is below the reserved share of it: the client raises :class:`BudgetReserved`,
which says when the limit resets, and the scheduled posts keep the rest. What needs no request
(a cached digest, a mirror synced moments ago) still answers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime

from digest.errors import DigestError
from digest.models import Lang

DEFAULT_SHARE = 0.3

_INTERACTIVE: ContextVar[bool] = ContextVar("vllm_report_interactive", default=False)


@contextmanager
def interactive() -> Iterator[None]:
    """Mark the work inside (and the tasks it starts) as asked for by a person."""
    token = _INTERACTIVE.set(True)
    try:
        yield
    finally:
        _INTERACTIVE.reset(token)


def is_interactive() -> bool:
    return _INTERACTIVE.get()


class BudgetReserved(DigestError):
    """What is left of the GitHub limit is kept for the daily posts until ``reset_at``; the
    words: :func:`digest.i18n.limits.reserve_text`."""

    def __init__(self, reset_at: datetime | None, lang: Lang = Lang.EN) -> None:
        super().__init__("GitHub budget reserved for the daily posts")
        self.reset_at = reset_at
        self.lang = lang

    def speaking(self, lang: Lang) -> BudgetReserved:
        """The same refusal, said in ``lang``."""
        return BudgetReserved(self.reset_at, lang)


def reserved(limit: int | None, remaining: int | None, share: float) -> bool:
    """Whether ``remaining`` of ``limit`` is within the reserved ``share``."""
    if share <= 0 or limit is None or remaining is None:
        return False
    return remaining < math.ceil(limit * share)
