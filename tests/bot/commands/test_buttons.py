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


async def test_a_scope_digests_buttons_ask_for_the_same_scope() -> None:
    """A configured scope's buttons name it (``@serving``, compact whatever its size); an ad hoc
    one over several repositories lists them; a click asks for the same subject."""
    from dataclasses import replace

    from bot.commands.buttons import digest_buttons
    from tests.support.scopes import NOW, SGLANG, VLLM, request, scope_rig

    async with scope_rig() as rig:
        digest = await rig.digest(request())
    buttons = digest_buttons(digest, SIGNER, now=NOW, day_start="11:21")
    assert [b.action for b in buttons] == ["prev", "next", "lang"]
    command = SIGNER.command(buttons[0].value or "")
    assert command.window == "2026-03-09" and command.options.repos == (VLLM, SGLANG)
    named = replace(digest, scope="serving")
    buttons = digest_buttons(named, SIGNER, now=NOW, day_start="11:21")
    command = SIGNER.command(buttons[2].value or "")
    assert command.options.scope == "serving" and command.options.lang is Lang.ZH
    assert command.options.repo is None and command.window == "2026-03-10"
