"""The reader's rules, asserted on two realistic vLLM days (tests/support/vllm_days.py), in zh
and en: Chinese prose, boilerplate never hot, answered questions never open, key changes
with a description, whole-sentence excerpts, a few themes weightiest first, siblings grouped,
and roles and affiliations of the people the report names."""

from __future__ import annotations

from dataclasses import replace

import pytest

from digest.analysis.excerpts import whole
from digest.analysis.substance import discussion, substance, template_lines
from digest.i18n import phrase
from digest.i18n.share import chinese_share, english_quotes, prose
from digest.models import (
    BulletList,
    Digest,
    ItemKey,
    ItemRef,
    Lang,
    Section,
    Text,
    UserRef,
    iter_spans,
)
from digest.writers.template.context import context
from tests.support.analysis_sample import REPO, build_digest
from tests.support.vllm_days import (
    ANSWERED,
    BOILERPLATE,
    DAYS,
    PROFILES,
    SIBLINGS,
    TITLE_ONLY,
    day_analysis,
)

LANGS = ("zh", "en")
FLOOR = 0.40
ENDS = ("。", ".", "!", "?", "！", "？", "…", ")", "）")


def _digest(day: str, lang: str) -> Digest:
    return build_digest(day_analysis(day), lang)


def _section(digest: Digest, sid: str) -> Section:
    return next(s for s in digest.sections if s.id == sid)


def _text(section: Section) -> str:
    return "".join(s.text for s in iter_spans(section.blocks) if isinstance(s, Text))


def _numbers(section: Section) -> set[int]:
    return {s.number for s in iter_spans(section.blocks) if isinstance(s, ItemRef)}


@pytest.mark.parametrize("day", DAYS)
def test_every_zh_section_but_the_appendix_is_chinese_prose(day: str) -> None:
    """40 % Chinese at least once titles, logins, links and code are set aside; no English
    sentence quoted."""
    digest = _digest(day, "zh")
    shares = {
        s.id: round(chinese_share(prose(s.blocks)), 2)
        for s in digest.sections
        if s.id != "appendix"
    }
    assert len(shares) >= 6 and min(shares.values()) >= FLOOR, shares
    by_letters = [chinese_share(prose(s.blocks), names=False) for s in digest.sections]
    assert min(by_letters) >= FLOOR  # also with every Latin letter weighed alike
    for section in digest.sections:
        assert english_quotes(prose(section.blocks)) == [], section.id


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_a_boilerplate_only_thread_is_never_hot_nor_quoted(day: str, lang: str) -> None:
    """Nine comments of rebases, CI chatter, "+1" and bots are no discussion."""
    analysis = day_analysis(day)
    assert BOILERPLATE[day] not in {hot.item.number for hot in analysis.hot}
    assert analysis.hot, "the day's real discussions are hot"
    hot = _section(_digest(day, lang), "hot")
    assert BOILERPLATE[day] not in _numbers(hot)
    text = _text(hot)
    for words in ("Rebased on main", "CI failure looks unrelated", "any update", "LGTM"):
        assert f"“{words}" not in text and f'"{words}' not in text


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_a_question_the_reporter_answered_is_never_open(day: str, lang: str) -> None:
    """The maintainer asked, the reporter answered an hour later, then a workaround came."""
    analysis = day_analysis(day)
    hot = next(h for h in analysis.hot if h.item.number == ANSWERED[day])
    assert hot.state.question is None
    assert hot.state.status == "workaround"
    opening = phrase("hot.question", lang).split("{", 1)[0]
    blocks = _section(_digest(day, lang), "hot").blocks
    assert opening not in _text(Section("hot", "", blocks))
    assert phrase("status.workaround", lang).split("{", 1)[-1].split("}", 1)[-1] in _text(
        Section("hot", "", blocks)
    )


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_no_key_change_lacks_a_description_beyond_its_title(day: str, lang: str) -> None:
    """Merges whose body repeats the title stay out; the measured ones are in."""
    analysis = day_analysis(day)
    numbers = {item.number for item in analysis.key_changes}
    assert numbers and not numbers & TITLE_ONLY[day]
    shown = _numbers(_section(_digest(day, lang), "key_changes"))
    assert not shown & TITLE_ONLY[day]
    assert {item.number for item in analysis.key_changes} <= shown


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_no_excerpt_ends_mid_sentence_or_at_a_code_block(day: str, lang: str) -> None:
    """Every item's 内容 ends a sentence; a description that breaks off into a code block
    ("fails to start with") is read past the block."""
    analysis = day_analysis(day)
    ctx = context(analysis, Lang(lang))
    for item in analysis.items:
        said = ctx.what(item)
        assert not said or said.endswith(ENDS), (item.number, said)
        assert not said.rstrip(".").endswith((" with", " to", " the", " of")), said
    measured = next(i for i in analysis.key_changes if "AITER fused MoE" in i.title)
    assert "fails to start with" not in ctx.what(measured)
    assert ctx.what(measured).startswith("This PR routes FP8 block-scaled experts")
    assert whole(["a b c d e f"], 5).endswith("…")


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_at_most_five_themes_each_weightiest_first(day: str, lang: str) -> None:
    """The day's main themes lead with the items of substance (the hot bug, the measured
    merge), not with the lowest numbers; one theme per name in the report's language."""
    analysis = day_analysis(day)
    assert 3 <= len(analysis.trends) <= 5
    data = analysis.data
    window = data.window
    talk = discussion([c for c in data.comments if window.contains(c.created_at)], window)
    template = template_lines(analysis.items)
    for trend in analysis.trends:
        weights = [substance(item, talk, template) for item in trend.items]
        assert weights == sorted(weights, reverse=True), trend.term
    top = analysis.trends[0]
    assert {top.items[0].number, top.items[1].number} >= {ANSWERED[day]}
    entries = _section(_digest(day, lang), "trends").blocks[-1]
    assert isinstance(entries, BulletList)
    lines = ["".join(s.text for s in line if isinstance(s, Text)) for line in entries.items]
    names = [line.split("（")[0].split(" (")[0] for line in lines]
    assert len(names) == len(set(names)) and len(names) <= 5, names


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_sibling_prs_are_grouped(day: str, lang: str) -> None:
    """The v2 that supersedes its first version is named with it."""
    analysis = day_analysis(day)
    first, second = sorted(SIBLINGS[day])
    a, b = ItemKey(REPO, first), ItemKey(REPO, second)
    assert analysis.siblings[a] == (b,) and analysis.siblings[b] == (a,)
    topic = _section(_digest(day, lang), "topic:rocm")
    lines = [line for b in topic.blocks if isinstance(b, BulletList) for line in b.items]
    firsts = set()
    for line in lines:
        refs = [s.number for s in line if isinstance(s, ItemRef)]
        for a, b in ((first, second), (second, first)):
            if refs and refs[0] == a:
                firsts.add(a)
                assert b in refs[1:], (a, refs)
    assert firsts == {first, second}


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_people_named_in_hot_and_topic_have_roles_and_affiliations(day: str, lang: str) -> None:
    """Every person the hot discussions and the focus topic name carries a role; the AMD
    engineer known by login carries AMD, in words too."""
    digest = _digest(day, lang)
    seen: dict[str, UserRef] = {}
    for sid in ("hot", "topic:rocm"):
        for span in iter_spans(_section(digest, sid).blocks):
            if isinstance(span, UserRef):
                assert span.role, (sid, span.login)
                seen[span.login] = span
    roles = {ref.login: ref.role for ref in seen.values()}
    assert roles["youkaichao"] == "maintainer"
    assert roles["ravi-kumar"] == "reporter"
    assert roles["mgoin"] in {"maintainer", "reviewer"}
    assert seen["tjtanaa-amd"].affiliation == "AMD"
    hot = _text(_section(digest, "hot"))
    assert phrase("role.maintainer", lang) in hot and phrase("role.reporter", lang) in hot
    assert "AMD" in hot


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_a_profile_company_gives_an_affiliation_the_login_does_not(day: str, lang: str) -> None:
    """gshtras's profile says "@AMD": the hot discussion calls him AMD, and the focus topic
    counts his items as AMD's, saying how it knows."""
    analysis = replace(day_analysis(day), companies=PROFILES)
    digest = build_digest(analysis, lang)
    refs = {
        s.login: s
        for sid in ("hot", "topic:rocm")
        for s in iter_spans(_section(digest, sid).blocks)
        if isinstance(s, UserRef)
    }
    assert refs["gshtras"].affiliation == "AMD" and refs["hongxiayang"].affiliation == "AMD"
    assert refs["mgoin"].affiliation == "" and refs["ravi-kumar"].affiliation == ""
    plain = build_digest(day_analysis(day), lang)
    before = _text(_section(plain, "topic:rocm"))
    after = _text(_section(digest, "topic:rocm"))
    said = phrase("topic.org_profile", lang).split("{n}")[-1]
    assert said not in before and said in after


@pytest.mark.parametrize("day", DAYS)
def test_a_comment_named_by_its_act_keeps_its_original_words(day: str) -> None:
    """zh says what the maintainer's comment does (请求信息) and keeps the English words as
    ``original``, outside the prose; en quotes them inline instead."""
    zh = _section(_digest(day, "zh"), "hot")
    kept = [s.text for s in iter_spans(zh.blocks) if isinstance(s, Text) and s.style == "original"]
    assert any(words.startswith("Could you share the full launch command") for words in kept)
    assert "Could you share" not in prose(zh.blocks) and phrase("act.ask_info", "zh") in _text(zh)
    en = _section(_digest(day, "en"), "hot")
    assert not [s for s in iter_spans(en.blocks) if isinstance(s, Text) and s.style == "original"]
    assert "Could you share the full launch command" in _text(en)


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_titles_are_shortened_after_their_first_mention_in_a_section(day: str, lang: str) -> None:
    """Within a section the first link reads the whole title, later ones a short form."""
    analysis = day_analysis(day)
    titles = {item.number: item.title for item in analysis.items}
    repeated = 0
    for section in _digest(day, lang).sections:
        seen: set[int] = set()
        for span in iter_spans(section.blocks):
            if not isinstance(span, ItemRef) or not span.title:
                continue
            if span.number in seen and section.id != "appendix":
                repeated += 1
                assert len(span.title) <= 30 and span.title != titles[span.number]
            elif section.id not in ("trends",):  # trends cut every title to its width
                assert span.title == titles[span.number], (section.id, span.number)
            seen.add(span.number)
    assert repeated


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("lang", LANGS)
def test_each_theme_has_an_interpretation_from_facts(day: str, lang: str) -> None:
    """Each theme says how many of its items block users and are still open, and where."""
    from digest.analysis.watch import watch_reason
    from digest.models import ItemState

    analysis = day_analysis(day)
    entries = _section(_digest(day, lang), "trends").blocks[-1]
    assert isinstance(entries, BulletList)
    opening = "。解读：" if lang == "zh" else ". Reading: "
    lines = ["".join(s.text for s in line if isinstance(s, Text)) for line in entries.items]
    assert lines and all(opening in line for line in lines)
    top = analysis.trends[0]
    blockers = sum(
        1 for i in top.items if watch_reason(i, ()) in {"blocker", "regression", "crash"}
    )
    still_open = sum(1 for i in top.items if i.state is ItemState.OPEN)
    assert blockers and still_open
    said = lines[0].split(opening, 1)[1]
    if lang == "zh":
        assert f"{blockers} 条为阻塞性问题" in said and f"{still_open} 条仍未解决" in said
        assert "主要涉及" in said
    else:
        assert f"{blockers} blocker" in said and f"{still_open} still open" in said
        assert "mostly in " in said
