"""How each language writes: lists of words, spaces, capitals, its script and its tag."""

from __future__ import annotations

from digest.i18n import cased, cjk_script, join_words, lang_tag, latin_gap, other, spaced
from digest.models import Lang


def test_a_list_of_words() -> None:
    """Chinese lists with 、, English with commas and a last "and"."""
    assert join_words(["a", "b", "c"], "zh") == "a、b、c"
    assert join_words(["a", "b", "c"], "en") == "a, b and c"
    assert join_words(["a"], "en") == "a"


def test_english_spaces_its_words_and_capitalises_chinese_does_neither() -> None:
    """Words and sentences are spaced and capitalised in English, run together in Chinese."""
    assert (spaced(Lang.EN), cased(Lang.EN)) == (True, True)
    assert (spaced(Lang.ZH), cased(Lang.ZH)) == (False, False)


def test_chinese_spaces_latin_text_that_follows() -> None:
    """其中 Bug 修复 has a space, 其中性能与内核 none; English templates hold their own."""
    assert latin_gap("Bug 修复", Lang.ZH) == " "
    assert latin_gap("性能与内核", Lang.ZH) == ""
    assert latin_gap("Bug fixes", Lang.EN) == ""


def test_script_tag_and_the_other_language() -> None:
    """Chinese is written in CJK script, tagged zh-CN, and switches to English (and back)."""
    assert cjk_script(Lang.ZH) and not cjk_script(Lang.EN)
    assert (lang_tag(Lang.ZH), lang_tag(Lang.EN)) == ("zh-CN", "en")
    assert (other(Lang.ZH), other(Lang.EN)) == (Lang.EN, Lang.ZH)
