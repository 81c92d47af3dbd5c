"""The answerer of questions: made once, on the first question, in the configured language."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from bot.commands.grammar import AskCommand
from bot.commands.runner import ReportCore
from bot.compose.questions import question_asker
from config.settings import load_config
from digest.ask import AnswerWriter
from digest.backends.sqlite.mirror import SQLiteStore
from digest.models import Answer
from tests.digest.conftest import SAMPLE_NOW, fill, sample_rows
from tests.support.asking import no_digest
from tests.support.paths import ROOT


class Echo:
    """An answerer that keeps the template's answer."""

    name = "echo"

    async def write(self, question: Any, found: Any, data: Any, fallback: Answer) -> Answer:
        return fallback


async def test_the_asker_and_its_model_are_made_once() -> None:
    """Every question goes to one asker over the mirror; the model's answerer is made once."""
    made: list[int] = []

    def writer() -> AnswerWriter:
        made.append(1)
        return Echo()

    asker = question_asker(load_config(), SQLiteStore(":memory:"), clock=lambda: SAMPLE_NOW)
    assert asker() is asker()
    with_model = question_asker(
        load_config(), SQLiteStore(":memory:"), clock=lambda: SAMPLE_NOW, writer=writer
    )
    assert with_model() is with_model() and made == [1]


def test_the_question_package_loads_with_the_first_question() -> None:
    """Making the maker of the asker loads nothing of ``digest.ask``; the first call does."""
    code = (
        "import sys\n"
        "from bot.compose.questions import question_asker\n"
        "from config.settings import load_config\n"
        "from digest.backends.sqlite.mirror import SQLiteStore\n"
        "from bot.compose import utcnow\n"
        "asker = question_asker(load_config(), SQLiteStore(':memory:'), clock=utcnow)\n"
        "before = 'digest.ask' in sys.modules\n"
        "asker()\n"
        "print(before, 'digest.ask' in sys.modules)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert run.stdout.split() == ["False", "True"]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_question_without_a_language_is_answered_in_the_default(lang: str) -> None:
    """A question whose words say no language (a number) is answered in ``default_lang``."""
    store = SQLiteStore(":memory:")
    await fill(store, *sample_rows())
    config = load_config()
    asker = question_asker(config, store, clock=lambda: SAMPLE_NOW, default_lang=lang)
    core = ReportCore(config=config, get_digest=no_digest, clock=lambda: SAMPLE_NOW, asker=asker)
    try:
        answer = await core.ask(AskCommand("#33492?"))
    finally:
        await store.close()
    assert answer.lang == lang
