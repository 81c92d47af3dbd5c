"""Log set-up of the bot process: plain lines, or one JSON object per line."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

# Attributes every LogRecord has; anything else came in through ``extra=``.
_STANDARD = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a record was logged with (``extra=``)."""
    return {
        key: value
        for key, value in vars(record).items()
        if key not in _STANDARD and not key.startswith("_")
    }


def _plain_value(value: Any) -> str:
    """A field's value on one line: a plain word as it is, anything else as JSON."""
    if isinstance(value, str) and value and not any(c.isspace() or c in '"=' for c in value):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


class PlainFormatter(logging.Formatter):
    """``time LEVEL logger: event key=value ...``, then the traceback if there is one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        extra = " ".join(f"{key}={_plain_value(value)}" for key, value in fields(record).items())
        return f"{line} {extra}" if extra else line


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "event", ...extra fields, "exc"}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
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
