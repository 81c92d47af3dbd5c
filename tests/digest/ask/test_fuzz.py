"""Whatever the text of a question, the answer is a clean, user-facing result."""

from __future__ import annotations

import random
import re

from bot.commands.grammar import command_line
from digest.ask import Asker
from digest.models import Answer
from digest.render.answer import render_answer_json, render_answer_markdown
from tests.digest.conftest import SAMPLE_NOW, plain
from tests.support.ask_phrases import PIECES

_ALPHABETS = (
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ ",
    "最近有什么进展今天本周上周三天合并讨论问题 ？，。、",
    "\x00\x01\x1b\x7f\u200b\u202e\ufeff\n\t\r",
    "éüñ߀😀🚀👍🏽ＡＭＤ０１２",
)


def _random_question(rng: random.Random) -> str:
    shape = rng.randrange(6)
    if shape == 0:
        return "".join(rng.choice(rng.choice(_ALPHABETS)) for _ in range(rng.randrange(0, 40)))
    if shape == 1:
        return rng.choice(PIECES) * rng.randrange(1, 400)  # very long
    if shape == 2:
        return "".join(rng.choice(_ALPHABETS[1]) for _ in range(rng.randrange(1, 60)))
    if shape == 3:
        return "\x00".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 8)))
    return " ".join(rng.choice(PIECES + tuple(_ALPHABETS[0].split())) for _ in range(8))


def _clean(answer: Answer) -> None:
    assert answer.blocks, "an answer always says something"
    text = plain(answer)
    assert "Traceback" not in text and "\x00" not in text
    markdown = render_answer_markdown(answer, command_line)
    assert not re.search(r"(?<!\\)@(?:channel|here|everyone)\b", markdown)
    assert not re.search(r"(?<!\\)<[!@#]", markdown)
    render_answer_json(answer)


async def test_random_questions_always_get_a_clean_answer(sample_asker: Asker) -> None:
    """Unicode, very long, punctuation-only, Markdown and null bytes: always a clean answer."""
    rng = random.Random(20260131)
    for _ in range(120):
        _clean(await sample_asker.ask(_random_question(rng)))


async def test_edge_questions_always_get_a_clean_answer(sample_asker: Asker) -> None:
    """Empty, blank, control-only and option-only questions are answered too."""
    for question in (
        "",
        " ",
        "\x00",
        "?",
        "？？？",
        "repo:",
        "lang:zh",
        "@channel",
        "#",
        "🚀" * 999,
    ):
        _clean(await sample_asker.ask(question))


def test_understanding_never_raises(sample_asker: Asker) -> None:
    """Thousands of random questions are understood without an exception."""
    rng = random.Random(7)
    for _ in range(2000):
        question = sample_asker.understand(_random_question(rng))
        window = question.when.window
        assert window.end <= SAMPLE_NOW and 0 < window.days <= 31
