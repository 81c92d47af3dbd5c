"""Log lines of the bot process: one line a record, bounded, whatever the record carries."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot.process.logs import MAX_FIELD, MAX_MESSAGE, JsonFormatter, PlainFormatter

FORGED = "\n2026-01-01 00:00:00,000 INFO bot.slack.handlers: admin.granted user=mallory\n"
BODY = "payload=" + "x" * 900 * 1024 + FORGED


def _logged(formatter: logging.Formatter, *, exc: bool = False) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    log = logging.getLogger("tests.logs")
    log.addHandler(handler)
    log.propagate = False
    try:
        if exc:
            try:
                raise ValueError(f"bad body {FORGED}")
            except ValueError:
                log.exception("request.failed %s", BODY, extra={"body": BODY})
        else:
            log.warning("request.refused %s", BODY, extra={"body": BODY, "n": 1})
    finally:
        log.removeHandler(handler)
        log.propagate = True
    return stream.getvalue()


@pytest.mark.parametrize("formatter", [PlainFormatter(), JsonFormatter()])
def test_a_huge_message_with_newlines_is_one_bounded_line(formatter: logging.Formatter) -> None:
    """A 900 KiB message and field with a forged line in them: one line of a few KiB, which
    says how much was left out."""
    out = _logged(formatter)
    assert out.count("\n") == 1
    assert len(out) < MAX_MESSAGE + MAX_FIELD + 500
    assert "chars)" in out
    assert not any(line.startswith("2026-01-01") for line in out.splitlines())


def test_a_plain_traceback_cannot_forge_a_line() -> None:
    """A traceback whose message holds a newline is indented under its record's line."""
    lines = _logged(PlainFormatter(), exc=True).splitlines()
    assert all(line.startswith("    ") for line in lines[1:])
    assert any("admin.granted" in line for line in lines[1:])


def test_json_fields_keep_their_types_when_short() -> None:
    """Short lists and numbers stay JSON values; only an over-long value becomes cut text."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    record = logging.LogRecord("x", logging.INFO, "", 0, "serve.started", None, None)
    record.front_ends = ["slack-http"]
    record.big = list(range(2000))
    handler.emit(record)
    data = json.loads(stream.getvalue())
    assert data["front_ends"] == ["slack-http"]
    assert isinstance(data["big"], str) and data["big"].endswith("chars)")
