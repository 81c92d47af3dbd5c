"""The template writer: every section, in zh and en, grounded in the window's data."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from functools import cache

import pytest

from digest.analysis.analyze import active_items, analyze
from digest.analysis.types import Analysis, WindowData
from digest.github.parse import comment_from_api, item_from_api
from digest.models import (
    BulletList,
    ItemRef,
    Paragraph,
    Section,
    Subheading,
    Text,
    UserRef,
    Window,
    iter_spans,
)
from digest.spans import user_url
from digest.writers.template import TemplateWriter
from digest.writers.template.report import section_ids
from tests.digest.i18n.test_titles import EN_HEADINGS, ZH_HEADINGS
from tests.support.analysis_sample import (
    REPO,
    REPO_URL,
    WINDOW,
    make_comment,
    make_item,
    rocm,
    sample_analysis,
    window_data,
)
from tests.support.ranking_day import ranking_analysis, ranking_day
from tests.support.synthetic import DEFAULT_NOW, generate
from tests.support.template_sections import template_section

ORDER = ["summary", "topic:rocm", "hot", "trends", "key_changes", "activity", "watch", "appendix"]
LANGS = ("zh", "en")


@cache
def _synthetic_analysis() -> Analysis:
    data = generate(days=1, now=DEFAULT_NOW, seed=3, repo=REPO)
    start, end = data.day(0)
    window = Window(start, end, "Asia/Shanghai", "day")
    items = tuple(item_from_api(row, REPO) for row in data.issues)
    comments = tuple(
        c
        for c in (comment_from_api(r, REPO) for r in data.comments)
        if window.contains(c.created_at)
    )
    return analyze(WindowData(REPO, REPO_URL, window, items, comments), (rocm(),))


def _empty_analysis() -> Analysis:
    return analyze(window_data(()), (rocm(),))


def _sections(analysis: Analysis, lang: str) -> tuple[Section, ...]:
    return TemplateWriter().sections(analysis, lang)


def _text(section: Section) -> str:
    out = []
    for span in iter_spans(section.blocks):
        if isinstance(span, Text):
            out.append(span.text)
        elif isinstance(span, ItemRef):
            out.append(f"#{span.number} {span.title}")
        else:
            out.append(f"@{span.login}")
    return "".join(out)


@pytest.mark.parametrize("lang", LANGS)
async def test_write_gives_every_section_in_order(lang: str) -> None:
    """write() returns the sections summary, topic:rocm, hot, …, appendix, by the template."""
    written = await TemplateWriter().write(sample_analysis(), lang)
    assert [s.id for s in written.sections] == ORDER
    assert {s.writer for s in written.sections} == {"template"}
    headings = ZH_HEADINGS if lang == "zh" else EN_HEADINGS
    assert [s.title for s in written.sections] == [headings[sid] for sid in ORDER]


def test_section_ids_follow_the_topics() -> None:
    """One topic section per configured topic, after the summary."""
    assert list(section_ids(sample_analysis())) == ORDER


@pytest.mark.parametrize(
    "analysis", [sample_analysis, _synthetic_analysis], ids=["sample", "synthetic"]
)
@pytest.mark.parametrize("lang", LANGS)
def test_every_reference_is_in_the_window(lang: str, analysis: Callable[[], Analysis]) -> None:
    """Every linked item is an item touched in the window, and every person one of its people."""
    a = analysis()
    items = {item.number: item for item in active_items(a.data)}
    people = {item.author for item in items.values()}
    people |= {c.author for c in a.data.comments if a.data.window.contains(c.created_at)}
    for section in _sections(a, lang):
        for span in iter_spans(section.blocks):
            if isinstance(span, ItemRef):
                assert span.number in items, (section.id, span.number)
                assert span.url == items[span.number].url
            elif isinstance(span, UserRef):
                assert span.login in people, (section.id, span.login)
                assert span.url == user_url(REPO_URL, span.login)


@pytest.mark.parametrize("lang", LANGS)
def test_text_names_no_outside_number_or_person(lang: str) -> None:
    """Quotes never carry an issue number or @mention from outside the window's data."""
    a = sample_analysis()
    numbers = {item.number for item in active_items(a.data)}
    people = {item.author.lower() for item in active_items(a.data)} | {"mgoin", "xyang16"}
    for section in _sections(a, lang):
        text = "".join(s.text for s in iter_spans(section.blocks) if isinstance(s, Text))
        assert {int(n) for n in re.findall(r"#(\d+)", text)} <= numbers
        assert {m.lower() for m in re.findall(r"@([\w-]+)", text)} <= people
    joined = "".join(_text(s) for s in _sections(a, lang))
    assert "24486" not in joined and "robertgshaw2-redhat" not in joined


@pytest.mark.parametrize("lang", LANGS)
def test_no_section_is_blank_on_an_empty_window(lang: str) -> None:
    """With no activity at all, every section still says something."""
    sections = _sections(_empty_analysis(), lang)
    assert [s.id for s in sections] == ORDER
    for section in sections:
        assert section.blocks, section.id
        assert _text(section).strip() or any(isinstance(b, Subheading) for b in section.blocks)


def test_empty_window_sentences() -> None:
    """The empty hot section says so in a sentence, in both languages."""
    a = _empty_analysis()
    assert _text(template_section("hot", a, "en")) == (
        "No discussion drew two or more substantive human comments in this window."
    )
    assert "热烈讨论" in _text(template_section("hot", a, "zh"))


@pytest.mark.parametrize("lang", LANGS)
def test_hot_discussion_names_who_said_what(lang: str) -> None:
    """The hot section names each participant with a quote and the point of contention."""
    section = template_section("hot", sample_analysis(), lang)
    logins = [s.login for s in iter_spans(section.blocks) if isinstance(s, UserRef)]
    assert {"xyang16", "mgoin"} <= set(logins)
    text = _text(section)
    if lang == "en":
        assert "The PR currently follows the same approach as attention backend selection" in text
        assert "I don't think we ever want to pick Triton" in text
    else:  # what each comment does, never an English quote; the words kept as "original"
        from digest.i18n.share import prose

        assert "@mgoin（维护者，1 条评论）：给出方案" in text
        assert "Triton" not in prose(section.blocks)
        kept = [s for s in iter_spans(section.blocks) if isinstance(s, Text)]
        assert any(s.style == "original" and "Triton" in s.text for s in kept)
        assert "争议焦点：@mgoin（维护者）提出不同意见" in text
    assert section.cites == (33490,)


def test_hot_discussion_excludes_bots_from_participants() -> None:
    """A bot's comments never show up as a participant's view."""
    item = make_item(1, "[RFC]: Scheduler rewrite", body="We should rewrite the scheduler now.")
    comments = (
        make_comment(1, 1, "bob", "I think this is the right direction for the scheduler."),
        make_comment(2, 1, "ci-bot[bot]", "Build failed: see the logs for details here.", bot=True),
        make_comment(3, 1, "carol", "I don't think we should rewrite it before the release."),
    )
    analysis = analyze(window_data((item,), comments), (rocm(),))
    section = template_section("hot", analysis, "en")
    logins = {s.login for s in iter_spans(section.blocks) if isinstance(s, UserRef)}
    assert logins == {"bob", "carol"}
    assert "Point of contention" in _text(section)


@pytest.mark.parametrize(("lang", "close"), [("zh", "小结："), ("en", "Takeaway:")])
def test_topic_section_groups_and_takeaway(lang: str, close: str) -> None:
    """The topic section groups its items, explains each and closes with a takeaway."""
    section = template_section("topic:rocm", sample_analysis(), lang)
    subheadings = [b.text for b in section.blocks if isinstance(b, Subheading)]
    assert len(subheadings) == 3
    assert set(section.cites) == {32492, 33463, 33478, 33492}
    bullets = [b for b in section.blocks if isinstance(b, BulletList)]
    for block in bullets:
        for entry in block.items:
            assert isinstance(entry[0], ItemRef) and entry[0].title
            assert any(isinstance(s, UserRef) for s in entry)
    last = section.blocks[-1]
    assert isinstance(last, Paragraph)
    assert isinstance(last.spans[0], Text) and last.spans[0].text.startswith(close)


@pytest.mark.parametrize(
    "analysis", [sample_analysis, _synthetic_analysis], ids=["sample", "synthetic"]
)
def test_appendix_has_all_five_full_lists(analysis: Callable[[], Analysis]) -> None:
    """The appendix lists every counted item with its title and author."""
    a = analysis()
    section = template_section("appendix", a, "zh")
    lists = [b for b in section.blocks if isinstance(b, BulletList | Paragraph)]
    assert len(lists) == 5
    for (_, items), block in zip(a.lists.pairs(), lists, strict=True):
        if not items:
            assert isinstance(block, Paragraph)
            continue
        assert isinstance(block, BulletList)
        assert [entry[0].number for entry in block.items] == [i.number for i in items]
        assert [entry[0].title for entry in block.items] == [i.title for i in items]
        assert [entry[-1].login for entry in block.items] == [i.author for i in items]


def test_section_fallback_matches_write() -> None:
    """A section written alone is the same as in the full write; unknown ids are rejected."""
    a = sample_analysis()
    writer = TemplateWriter()
    assert template_section("trends", a, "en") == writer.sections(a, "en")[3]
    with pytest.raises(ValueError):
        template_section("topic:nope", a, "en")
    with pytest.raises(ValueError):
        template_section("nonsense", a, "en")


def test_deterministic() -> None:
    """The same analysis always gives the same sections."""
    a = _synthetic_analysis()
    assert _sections(a, "zh") == _sections(a, "zh")


def test_summary_mentions_volume_and_focus() -> None:
    """The summary gives the day's volume, its themes, the ROCm count and the top items."""
    text = _text(template_section("summary", sample_analysis(), "zh"))
    assert text.startswith("本时段的主线是注意力后端、AMD ROCm 平台：#32492")  # the story first
    assert "本时段（24 小时）新增 3 个 Issue、关闭 2 个；新开 4 个 PR，合并 2 个。" in text
    assert "AMD ROCm 平台（4 条）" in text
    assert "#32492" in text and "#33490" in text


def test_long_topic_groups_are_capped() -> None:
    """A group of more than twelve items shows twelve and says how many more there are."""
    items = tuple(make_item(n, f"[ROCm] Tune kernel {n}", pr=True) for n in range(1, 16))
    analysis = analyze(window_data(items), (rocm(),))
    section = template_section("topic:rocm", analysis, "en")
    bullets = [b for b in section.blocks if isinstance(b, BulletList)]
    assert len(bullets[0].items) == 13
    assert _text(section).count("… and 3 more") == 1


def _entries(section: Section) -> list[str]:
    bullets = [b for b in section.blocks if isinstance(b, BulletList)]
    return [_text(Section("x", "x", (Paragraph(e),))) for b in bullets for e in b.items]


def test_explanation_does_not_repeat_the_title() -> None:
    """A description that only repeats the title gives way to what the item does."""
    item = make_item(1, "[ROCm] Enable fused MoE", pr=True, body="Enable fused MoE.")
    analysis = analyze(window_data((item,)), (rocm(),))
    (entry,) = _entries(template_section("topic:rocm", analysis, "en"))
    assert entry == (
        "#1 [ROCm] Enable fused MoE (open, PR author @alice): A performance improvement, in MoE."
    )
    (entry,) = _entries(template_section("topic:rocm", analysis, "zh"))
    assert entry.endswith("（待合并，PR 作者 @alice）：性能优化，涉及混合专家（MoE）。")


def test_explanations_are_not_repeated() -> None:
    """Items sharing a description: the first quotes it, the next says what it does instead."""
    body = "Tighten the kernel selection so the fast path is used for common shapes."
    items = (
        make_item(1, "[ROCm] Tune the fused MoE kernel", pr=True, body=body),
        make_item(2, "[ROCm] Fix a crash in the sampler", body=body, labels=("bug",)),
    )
    analysis = analyze(window_data(items), (rocm(),))
    entries = _entries(template_section("topic:rocm", analysis, "en"))
    assert entries[0].endswith(f": {body}")
    assert ": A bug report, in " in entries[1] and body not in entries[1]


def test_key_change_explains_past_a_sentence_that_repeats_the_title() -> None:
    """A key change quotes the first sentence of its description that adds to the title."""
    body = "## Purpose\n\nEnable fused MoE. The old path copied the expert weights twice.\n"
    merged = make_item(
        1, "[Kernel] Enable fused MoE", pr=True, body=body, merged=WINDOW.start + timedelta(hours=2)
    )
    analysis = analyze(window_data((merged,)), (rocm(),))
    (entry,) = _entries(template_section("key_changes", analysis, "en"))
    assert entry == (
        "#1 [Kernel] Enable fused MoE (PR author @alice): The old path copied the expert weights "
        "twice. Impact: makes MoE faster."
    )


@pytest.mark.parametrize(
    ("lang", "takeaway"),
    [
        (
            "zh",
            "小结：AMD/ROCm 生态方向本时段共 4 条动态，其中性能与内核 1 条、"
            "Bug 修复与稳定性 1 条、生态与需求 2 条；2 个 PR 已合并、2 条已关闭。",
        ),
        (
            "en",
            "Takeaway: 4 AMD/ROCm ecosystem items (1 in performance & kernels, 1 in bug fixes & "
            "stability, 2 in ecosystem & requests); 2 merged, 2 closed.",
        ),
    ],
)
def test_takeaway_names_only_the_states_that_occur(lang: str, takeaway: str) -> None:
    """The takeaway counts merged, closed and open items, leaving out the ones at zero."""
    section = template_section("topic:rocm", sample_analysis(), lang)
    last = section.blocks[-1]
    assert isinstance(last, Paragraph)
    assert _text(Section("x", "x", (last,))).startswith(takeaway)


def test_one_item_sentences_read_in_the_singular() -> None:
    """One merged PR: a spaced 其中 Bug 修复 takeaway, and no "every one of the 1 PR"."""
    merged = make_item(
        5,
        "[ROCm] Fix MI300X hang",
        pr=True,
        merged=WINDOW.start + timedelta(hours=3),
        body="The RCCL init waited on a barrier that the second rank never reached.",
    )
    analysis = analyze(window_data((merged,)), (rocm(),))
    zh = _text(template_section("topic:rocm", analysis, "zh"))
    assert "其中 Bug 修复与稳定性 1 条；1 个 PR 已合并。" in zh
    en = _text(template_section("activity", analysis, "en"))
    assert "The one PR opened in this window is already merged or closed." in en
    summary = _text(template_section("summary", analysis, "zh"))
    assert "重点合并是 #5" in summary and "未合并即关闭" not in summary


def test_chinese_descriptions_and_comments_are_quoted() -> None:
    """Chinese text is prose too: the core issue, a viewpoint and a Chinese objection."""
    item = make_item(
        7,
        "[Bug]: MI300X 上运行 Qwen3.5 崩溃",
        body="在 MI300X 上运行 Qwen3.5 时，服务在几百个请求后崩溃。",
    )
    comments = (
        make_comment(1, 7, "li", "我在 MI325X 上也能复现这个问题，回退到上一个版本就正常了。"),
        make_comment(2, 7, "wang", "我不同意默认关闭 AITER，这会让所有用户的性能下降。"),
    )
    analysis = analyze(window_data((item,), comments), (rocm(),))
    text = _text(template_section("hot", analysis, "zh"))
    assert "核心问题：在 MI300X 上运行 Qwen3.5 时，服务在几百个请求后崩溃。" in text
    assert (
        "@li（社区成员，1 条评论）：复现确认，涉及AMD ROCm 平台——“我在 MI325X 上也能复现这个问题"
        in text
    )
    assert (
        "争议焦点：@wang（社区成员）提出不同意见，涉及AMD ROCm 平台——“我不同意默认关闭 AITER"
        in text
    )


def test_takeaway_of_closed_items_ends_with_its_sentence() -> None:
    """With nothing open or merged, the takeaway is one sentence with no trailing space."""
    closed = make_item(
        3, "[ROCm] Try another kernel", pr=True, closed=WINDOW.start + timedelta(hours=2)
    )
    analysis = analyze(window_data((closed,)), (rocm(),))
    last = template_section("topic:rocm", analysis, "en").blocks[-1]
    assert isinstance(last, Paragraph)
    assert _text(Section("x", "x", (last,))).endswith("; 1 closed.")


def _entry_leads(section: Section) -> list[int]:
    """The item each bullet of ``section`` is about (its first link), in reading order."""
    leads = []
    for block in section.blocks:
        if isinstance(block, BulletList):
            for entry in block.items:
                leads.append(next(s.number for s in entry if isinstance(s, ItemRef)))
    return leads


@pytest.mark.parametrize("lang", LANGS)
def test_substantive_changes_and_regressions_lead_on_a_ranking_day(lang: str) -> None:
    """On a day of template-only tweaks, the substantive merges and regressions come first."""
    day = ranking_day()
    analysis = ranking_analysis(day)
    changes = _entry_leads(template_section("key_changes", analysis, lang))
    watch = _entry_leads(template_section("watch", analysis, lang))
    assert set(changes[: len(day.substantive_merged)]) == day.substantive_merged
    assert set(watch[: len(day.substantive_open)]) == day.substantive_open


@pytest.mark.parametrize(
    ("lang", "fixed", "fixes"),
    [("en", "fixed by", "fixes"), ("zh", "已由", "修复")],
)
def test_linked_fixes_are_shown_where_items_appear(lang: str, fixed: str, fixes: str) -> None:
    """A hot issue names the merged PR that fixes it; that PR names the issue it fixes."""
    from dataclasses import replace as changed

    bug = make_item(1, "[Bug]: crash in the scheduler", labels=("bug",))
    proposal = changed(make_item(2, "[Bugfix] Guard the block pool", pr=True), fixes=(1,))
    merged = changed(
        make_item(3, "[Core] Drop stale hashes", pr=True, merged=WINDOW.start + timedelta(hours=5)),
        fixes=(1,),
        body_excerpt="Drop the stale block hash before freeing the block.",
    )
    talk = tuple(make_comment(n, 1, who) for n, who in enumerate(("ann", "bob", "cat")))
    analysis = analyze(window_data((bug, proposal, merged), talk), ())
    hot = template_section("hot", analysis, lang)
    changes = template_section("key_changes", analysis, lang)
    hot_text = "".join(s.text if isinstance(s, Text) else "" for s in iter_spans(hot.blocks))
    assert 3 in hot.cites and fixed in hot_text
    change_text = "".join(s.text if isinstance(s, Text) else "" for s in iter_spans(changes.blocks))
    assert fixes in change_text and 1 in changes.cites


def _people_day() -> Analysis:
    """A debated ROCm issue: a maintainer, an AMD community member and the reporter."""
    from dataclasses import replace

    from digest.models import Organisation

    issue = make_item(9, "[Bug][ROCm]: MI300X hangs on startup", labels=("bug", "rocm"))
    said = (
        replace(
            make_comment(1, 9, "mgoin", "Can you share the full log of the hang, please?"),
            author_association="MEMBER",
        ),
        make_comment(
            2, 9, "hongxia-amd", "I reproduced it on MI300X with ROCm 6.4 and the 0.15 image."
        ),
        make_comment(3, 9, "alice", "Here is the full log; it hangs in the RCCL init step."),
    )
    data = window_data((issue,), said)
    amd = Organisation("AMD", suffixes=("-amd",))
    return analyze(data, (replace(rocm(), organisation="AMD"),), organisations=(amd,))


@pytest.mark.parametrize(
    ("lang", "maintainer", "member", "reporter"),
    [
        ("zh", "@mgoin（维护者", "@hongxia-amd（社区成员，AMD", "@alice（问题报告者"),
        ("en", "@mgoin (maintainer", "@hongxia-amd (community member, AMD", "@alice (reporter"),
    ],
)
def test_hot_discussion_names_roles_and_affiliations(
    lang: str, maintainer: str, member: str, reporter: str
) -> None:
    """Each participant of a hot discussion carries a role, and an organisation when known."""
    section = template_section("hot", _people_day(), lang)
    text = _text(section)
    assert maintainer in text and member in text and reporter in text
    roles = {
        s.login: (s.role, s.affiliation)
        for s in iter_spans(section.blocks)
        if isinstance(s, UserRef)
    }
    assert roles["mgoin"] == ("maintainer", "")
    assert roles["hongxia-amd"] == ("community", "AMD")
    assert roles["alice"] == ("reporter", "")


@pytest.mark.parametrize(
    ("lang", "author", "share"),
    [
        (
            "zh",
            "问题报告者 @alice",
            "本时段没有识别出由 AMD 贡献者提交的条目（按登录名识别：含 -amd 后缀）",
        ),
        (
            "en",
            "reporter @alice",
            "None came from a recognised AMD contributor (recognised by login: the -amd suffix)",
        ),
    ],
)
def test_topic_names_authors_and_its_organisations_share(
    lang: str, author: str, share: str
) -> None:
    """The focus topic names each author's role and says how much came from its organisation."""
    text = _text(template_section("topic:rocm", _people_day(), lang))
    assert author in text and share in text


def _answered_day() -> Analysis:
    """A maintainer asks, the reporter answers an hour later; boilerplate around it."""
    from dataclasses import replace

    issue = make_item(9, "[Bug]: Whisper output is garbage with FA2 and CUDA graphs")
    hour = timedelta(hours=1)
    said = (
        make_comment(
            1,
            9,
            "alice",
            "Output is garbage with FA2 and full CUDA graphs on A100.",
            at=WINDOW.start + hour,
        ),
        replace(
            make_comment(
                2,
                9,
                "mgoin",
                "Could you try with cudagraph_mode=NONE and share the result?",
                at=WINDOW.start + 2 * hour,
            ),
            author_association="MEMBER",
        ),
        make_comment(
            3,
            9,
            "alice",
            "With cudagraph_mode=NONE it works, so the cause is FA2 under full CUDA graph capture.",
            at=WINDOW.start + 3 * hour,
        ),
        make_comment(4, 9, "bob", "Rebased on main.", at=WINDOW.start + 4 * hour),
        make_comment(5, 9, "carol", "Any update?", at=WINDOW.start + 5 * hour),
    )
    return analyze(window_data((issue,), said), (rocm(),))


@pytest.mark.parametrize("lang", LANGS)
def test_an_answered_question_is_not_shown_as_open(lang: str) -> None:
    """The reporter answered the maintainer: no open question, and the finding is the status."""
    text = _text(template_section("hot", _answered_day(), lang))
    assert "待解决的问题" not in text and "Open question" not in text
    assert ("@alice（问题报告者）已缩小问题原因" in text) or (
        "@alice (reporter) narrowed down the cause" in text
    )


@pytest.mark.parametrize("lang", LANGS)
def test_boilerplate_is_never_quoted_nor_counted(lang: str) -> None:
    """ "Rebased on main." and "Any update?" are neither quoted, nor participants, nor heat."""
    text = _text(template_section("hot", _answered_day(), lang))
    assert "Rebased" not in text and "Any update" not in text
    assert "@bob" not in text and "@carol" not in text
    assert ("3 条评论" in text) if lang == "zh" else ("3 comments" in text)


def test_quotes_are_chosen_by_substance() -> None:
    """Each participant's most substantive comment is quoted, not their first (en)."""
    text = _text(template_section("hot", _answered_day(), "en"))
    assert "so the cause is FA2 under full CUDA graph capture" in text


def test_zh_discussions_say_what_comments_do_instead_of_quoting() -> None:
    """In zh a comment is its act (请求信息, 根因分析…), never an English quote."""
    text = _text(template_section("hot", _answered_day(), "zh"))
    assert "请求信息" in text and "“" not in text


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh", "值得尽快确认。缺陷报告，涉及推测解码（DeepSeek-V3.2）。"),
        ("en", "A bug report, in speculative decoding"),
    ],
)
def test_worth_watching_says_why_in_facts(lang: str, said: str) -> None:
    """A watched item's reason is followed by its facts: kind, areas and names."""
    assert said in _text(template_section("watch", sample_analysis(), lang))
