"""Log set-up of the bot process: plain lines, or one JSON object per line.

A record is one line, however long or strange what it carries: a message is cut at
``MAX_MESSAGE`` characters and a field's value at ``MAX_FIELD``, with the number of characters
left out, and in the plain format control characters (a newline of a request body, say) are
written as escapes and a traceback's lines are indented, so nothing logged can forge a line.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

MAX_MESSAGE = 2000
MAX_FIELD = 1000
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")

# Attributes every LogRecord has; anything else came in through ``extra=``.
_STANDARD = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)


def cut(text: str, limit: int) -> str:
    """``text`` at most ``limit`` characters, saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit} chars)"


def _bounded(value: Any) -> Any:
    if isinstance(value, str):
        return cut(value, MAX_FIELD)
    if isinstance(value, int | float | bool) or value is None:
        return value
    dumped = json.dumps(value, ensure_ascii=False, default=str)
    return value if len(dumped) <= MAX_FIELD else cut(dumped, MAX_FIELD)


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a record was logged with (``extra=``), each value within ``MAX_FIELD``."""
    return {
        key: _bounded(value)
        for key, value in vars(record).items()
        if key not in _STANDARD and not key.startswith("_")
    }


def one_line(text: str) -> str:
    """``text`` with every control character written as an escape (``\\n``, ``\\x1b``)."""
    return _CONTROL.sub(lambda m: json.dumps(m[0])[1:-1], text)


def _plain_value(value: Any) -> str:
    """A field's value on one line: a plain word as it is, anything else as JSON."""
    if isinstance(value, str) and value and not any(c.isspace() or c in '"=' for c in value):
        return value
    return one_line(json.dumps(value, ensure_ascii=False, default=str))


class PlainFormatter(logging.Formatter):
    """``time LEVEL logger: event key=value ...``, then the traceback if there is one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = one_line(cut(record.message, MAX_MESSAGE))
        line = super().formatMessage(record)
        extra = " ".join(f"{key}={_plain_value(value)}" for key, value in fields(record).items())
        return f"{line} {extra}" if extra else line

    def formatException(self, ei: Any) -> str:
        """The traceback, each of its lines indented under the record's line."""
        return "\n".join(f"    {line}" for line in super().formatException(ei).splitlines())

    def formatStack(self, stack_info: str) -> str:
        return "\n".join(f"    {line}" for line in stack_info.splitlines())


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "event", ...extra fields, "exc"}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": cut(record.getMessage(), MAX_MESSAGE),
            **fields(record),
        }
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def configure(
    *, json_lines: bool, level: int = logging.INFO, stream: TextIO | None = None
) -> logging.Handler:
    """Send every log record to ``stream`` (stderr), as JSON lines when ``json_lines``."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if json_lines else PlainFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
