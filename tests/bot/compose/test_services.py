"""What ``serve`` runs, built on a runtime; and ``serve`` itself."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from bot.compose.services import EXIT_CONFIG, NO_FRONT_END, cut_short_note, serve
from config.settings import load_config
from digest.builder import DigestRequest
from digest.models import Window
from digest.schedule.command_threads import OpenThread
from tests.support.paths import ROOT
from tests.support.serve import front_end_settings


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", ("vLLM", "2026-01-31", "3 of its messages")), ("zh", ("vLLM", "3 条消息", "中断"))],
)
def test_the_cut_short_note_names_the_digest_in_its_language(
    lang: str, words: tuple[str, ...]
) -> None:
    """The note a stale command thread gets names the report by its display name, its window
    and how far it got, in the digest's language."""
    start = datetime(2026, 1, 31, 3, 21, tzinfo=UTC)
    window = Window(start, start + timedelta(days=1), "Asia/Shanghai", "2026-01-31")
    request = DigestRequest("vllm-project/vllm", window, lang, "template", (), "vLLM")
    thread = OpenThread("cmd:1", "slack", "C1", "U1", request, start)
    note = cut_short_note(thread, 3)
    assert all(word in note for word in words), note


async def test_no_front_end_says_what_to_configure_and_fails() -> None:
    """Without any token serve prints what to set and exits non-zero."""
    err = io.StringIO()
    code = await serve(front_end_settings(), load_config(), handle_signals=False, err=err)
    assert code == EXIT_CONFIG != 0
    assert err.getvalue().startswith(NO_FRONT_END)
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "DISCORD_TOKEN"):
        assert name in err.getvalue()


@pytest.mark.slow
def test_serve_command_without_tokens_exits_with_the_configuration_code() -> None:
    """`vllm-report serve` with no chat token prints what to set and exits with code 6."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SLACK_", "DISCORD_", "REDIS_", "VLLM_REPORT_HTTP"))
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == EXIT_CONFIG == 6
    assert done.stderr.startswith(NO_FRONT_END) and "Traceback" not in done.stderr
