"""A button's signed value: what a click asks for, and the values that are refused."""

from __future__ import annotations

import pytest

from bot.commands import messages
from bot.commands.buttons import ButtonRefused, ButtonSigner
from digest.models import Lang

SIGNER = ButtonSigner(b"the key every replica shares")


def test_a_signed_value_asks_for_its_day_language_and_repository() -> None:
    """The command of a click is what the button was made for, its language a language."""
    value = SIGNER.sign("2026-03-10", Lang.ZH, "vllm-project/vllm")
    assert value is not None
    command = SIGNER.command(value)
    assert command.options.lang is Lang.ZH and command.options.repo == "vllm-project/vllm"
    assert command.window == "2026-03-10"


@pytest.mark.parametrize("lang", ["fr", ""])
def test_a_signed_value_of_no_language_is_refused(lang: str) -> None:
    """A value signed with the right key but no language of ours is refused as forged."""
    value = SIGNER.sign("2026-03-10", lang, "vllm-project/vllm")
    assert value is not None
    with pytest.raises(ButtonRefused, match="not made by this bot") as caught:
        SIGNER.command(value)
    assert str(caught.value) == messages.BUTTON_FORGED


def test_an_edited_language_breaks_the_signature() -> None:
    """Turning a signed ``en`` into ``zh`` makes the value a forgery."""
    value = SIGNER.sign("2026-03-10", Lang.EN, "vllm-project/vllm")
    assert value is not None
    with pytest.raises(ButtonRefused, match="not made by this bot"):
        SIGNER.command(value.replace("|en|", "|zh|"))
