"""The template writer: every section, in zh and en, grounded in the window's data."""

from __future__ import annotations

import re
from collections.abc import Callable
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
from digest.writers.spans import user_url
from digest.writers.template import TemplateWriter, section_ids
from tests.digest.analysis.sample import (
    REPO,
    REPO_URL,
    make_comment,
    make_item,
    rocm,
    sample_analysis,
    window_data,
)
from tests.digest.writers.test_i18n import EN_HEADINGS, ZH_HEADINGS
from tests.synthetic import DEFAULT_NOW, generate

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
    assert _text(TemplateWriter().section("hot", a, "en")) == (
        "No discussion drew two or more human comments in this window."
    )
    assert "热烈讨论" in _text(TemplateWriter().section("hot", a, "zh"))


@pytest.mark.parametrize("lang", LANGS)
def test_hot_discussion_names_who_said_what(lang: str) -> None:
    """The hot section names each participant with a quote and the point of contention."""
    section = TemplateWriter().section("hot", sample_analysis(), lang)
    logins = [s.login for s in iter_spans(section.blocks) if isinstance(s, UserRef)]
    assert {"xyang16", "mgoin"} <= set(logins)
    text = _text(section)
    assert "The PR currently follows the same approach as attention backend selection" in text
    assert "I don't think we ever want to pick Triton" in text
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
    section = TemplateWriter().section("hot", analysis, "en")
    logins = {s.login for s in iter_spans(section.blocks) if isinstance(s, UserRef)}
    assert logins == {"bob", "carol"}
    assert "Point of contention" in _text(section)


@pytest.mark.parametrize(("lang", "close"), [("zh", "小结："), ("en", "Takeaway:")])
def test_topic_section_groups_and_takeaway(lang: str, close: str) -> None:
    """The topic section groups its items, explains each and closes with a takeaway."""
    section = TemplateWriter().section("topic:rocm", sample_analysis(), lang)
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
    section = TemplateWriter().section("appendix", a, "zh")
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
    """section() gives the same section as the full write, and rejects unknown ids."""
    a = sample_analysis()
    writer = TemplateWriter()
    assert writer.section("trends", a, "en") == writer.sections(a, "en")[3]
    with pytest.raises(ValueError):
        writer.section("topic:nope", a, "en")
    with pytest.raises(ValueError):
        writer.section("nonsense", a, "en")


def test_deterministic() -> None:
    """The same analysis always gives the same sections."""
    a = _synthetic_analysis()
    assert _sections(a, "zh") == _sections(a, "zh")


def test_summary_mentions_volume_and_focus() -> None:
    """The summary gives the day's volume, its themes, the ROCm count and the top items."""
    text = _text(TemplateWriter().section("summary", sample_analysis(), "zh"))
    assert text.startswith("本时段（24 小时）新增 3 个 Issue、关闭 2 个；新开 4 个 PR，合并 2 个")
    assert "ROCm（4 条）" in text
    assert "#32492" in text and "#33490" in text


def test_long_topic_groups_are_capped() -> None:
    """A group of more than twelve items shows twelve and says how many more there are."""
    items = tuple(make_item(n, f"[ROCm] Tune kernel {n}", pr=True) for n in range(1, 16))
    analysis = analyze(window_data(items), (rocm(),))
    section = TemplateWriter().section("topic:rocm", analysis, "en")
    bullets = [b for b in section.blocks if isinstance(b, BulletList)]
    assert len(bullets[0].items) == 13
    assert _text(section).count("… and 3 more") == 1


def test_explanation_does_not_repeat_the_title() -> None:
    """When the description only repeats the title, no explanation is quoted."""
    item = make_item(1, "[ROCm] Enable fused MoE", pr=True, body="Enable fused MoE.")
    analysis = analyze(window_data((item,)), (rocm(),))
    section = TemplateWriter().section("topic:rocm", analysis, "en")
    bullets = [b for b in section.blocks if isinstance(b, BulletList)]
    entry = Section("x", "x", (Paragraph(bullets[0].items[0]),))
    assert _text(entry) == "#1 [ROCm] Enable fused MoE (open, by @alice)"
