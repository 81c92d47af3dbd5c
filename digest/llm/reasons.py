"""Why a model-written text was not kept: one reason for each way a request or answer fails.

The writer shows the template's section instead, the answerer the template's answer; the reason
goes into the visible note (worded in ``digest.i18n`` as ``fallback.<reason>``), the section's
``fallback`` field and the digest's provenance.
"""

from __future__ import annotations

from enum import StrEnum

from digest.i18n import t
from digest.models import Lang


class Reason(StrEnum):
    """One way a model-written text fails, from the request to the substance of the answer."""

    # the request
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    UNREACHABLE = "unreachable"
    REJECTED = "rejected"
    BUDGET = "budget"
    # the answer's form
    REFUSED = "refused"
    NOT_JSON = "not_json"
    TRUNCATED = "truncated"
    EMPTY = "empty"
    SCHEMA = "schema"
    # the answer's content
    UNGROUNDED = "ungrounded"
    ECHO = "echo"
    LANGUAGE = "language"
    COUNTS = "counts"
    CITES = "cites"
    PARTICIPANTS = "participants"
    LENGTH = "length"


def note(title: str, reason: Reason, lang: Lang) -> str:
    """The visible note of a text that fell back to the template."""
    return t("fallback.note", lang, title=title, why=t(f"fallback.{reason.value}", lang))
