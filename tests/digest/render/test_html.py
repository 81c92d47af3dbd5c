"""HTML rendering of the report pages: the whole digest, navigation, hostile text kept inert."""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser

import pytest

from digest.models import (
    BulletList,
    Digest,
    ItemRef,
    Lang,
    Link,
    Paragraph,
    Section,
    Subheading,
    Text,
    UserRef,
)
from digest.render.charts import activity_chart, render_svg
from digest.render.html import (
    DayEntry,
    Figure,
    Nav,
    RepoIndex,
    anchor,
    first_sentence,
    render_blocks,
    render_repo_index,
    render_report,
    render_search,
)
from tests.support.analysis_sample import build_digest, sample_analysis, sample_data
from tests.support.outside import TEXT_ADDRESSES, with_outside_text

NAV = Nav(
    root="../../../../",
    lang="en",
    repo_index="../../",
    previous="../../2026-01-30/en/",
    next="../../2026-02-01/en/",
    other_lang="../zh/",
    feed="../../feed.en.xml",
)
HOSTILE = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(1)",
    "</details></section><script>alert(2)</script>",
    "{{ 7*7 }} {% raw %}",
)


class _Page(HTMLParser):
    """The elements, attributes and text of a page, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def attrs(self, tag: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag]


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


@pytest.fixture(scope="module")
def digest_en() -> Digest:
    return build_digest(sample_analysis(), "en")


def _hostile_digest(base: Digest) -> Digest:
    evil_blocks = (
        Paragraph((*(Text(h) for h in HOSTILE), Text("x" * 200_000))),
        Subheading(HOSTILE[0]),
        BulletList(
            (
                (ItemRef(1, "javascript:alert(1)", HOSTILE[1]),),
                (ItemRef(2, 'https://github.com/o/r/issues/2" onmouseover="alert(1)', "t"),),
                (UserRef('"><script>alert(3)</script>', "JaVaScRiPt:alert(1)"),),
                (ItemRef(3, "data:text/html,<script>alert(1)</script>", HOSTILE[0]),),
            )
        ),
    )
    return dataclasses.replace(
        base,
        sections=(Section("summary", HOSTILE[0], evil_blocks), *base.sections),
        notes=HOSTILE,
        display_name=HOSTILE[1],
    )


def test_every_section_has_a_heading_and_a_contents_entry(digest_en: Digest) -> None:
    """Each section of the digest is on the page under its heading, linked from the contents."""
    page = parse(render_report(digest_en, NAV))
    hrefs = [a.get("href") for a in page.attrs("a")]
    ids = {a.get("id") for _, a in page.tags}
    for section in digest_en.sections:
        assert f"#{anchor(section.id)}" in hrefs
        assert anchor(section.id) in ids
        assert section.title in page.text


def test_appendix_lists_are_collapsible(digest_en: Digest) -> None:
    """The appendix's five lists each sit in a <details> whose summary names the list."""
    html = render_report(digest_en, NAV)
    appendix = html[html.index('id="appendix"') :]
    assert appendix.count("<details>") == 5
    assert "<summary>New issues (3)</summary>" in appendix


def test_navigation_links(digest_en: Digest) -> None:
    """Previous/next days, the other language and the repository's index are linked."""
    page = parse(render_report(digest_en, NAV))
    links = {a.get("href"): a for a in page.attrs("a")}
    assert links["../../2026-01-30/en/"].get("rel") == "prev"
    assert links["../../2026-02-01/en/"].get("rel") == "next"
    assert links["../zh/"].get("hreflang") == "zh-CN"
    assert "../../" in links


def test_items_link_to_github_with_noopener(digest_en: Digest) -> None:
    """Every link that leaves the site goes to GitHub over https with rel="noopener"."""
    page = parse(render_report(digest_en, NAV))
    external = [a for a in page.attrs("a") if (a.get("href") or "").startswith("http")]
    assert len(external) > 20
    for link in external:
        assert (link.get("href") or "").startswith("https://github.com/")
        assert link.get("rel") == "noopener"


def test_page_frame(digest_en: Digest) -> None:
    """The page declares its language, a CSP without scripts and a viewport; nothing is remote."""
    html = render_report(digest_en, NAV)
    page = parse(html)
    assert page.attrs("html")[0]["lang"] == "en"
    meta = {a.get("http-equiv") or a.get("name"): a.get("content") for a in page.attrs("meta")}
    assert "script-src" not in (meta["Content-Security-Policy"] or "")
    assert "default-src 'none'" in (meta["Content-Security-Policy"] or "")
    assert "width=device-width" in (meta["viewport"] or "")
    assert not page.attrs("script")
    for tag, attrs in page.tags:
        if tag in ("link", "img", "script"):
            assert not (attrs.get("href") or attrs.get("src") or "").startswith(("http", "//"))


def test_zh_page_is_marked_zh_cn() -> None:
    """A Chinese report carries lang="zh-CN" and its Chinese headings."""
    html = render_report(build_digest(sample_analysis(), "zh"), dataclasses.replace(NAV, lang="zh"))
    page = parse(html)
    assert page.attrs("html")[0]["lang"] == "zh-CN"
    assert "📊 每日开发状态摘要" in page.text


def test_provenance(digest_en: Digest) -> None:
    """The window, the writer and the sync time are on the page."""
    text = " ".join(parse(render_report(digest_en, NAV)).text)
    assert "2026-01-31 11:44 (UTC+8) ~ 2026-02-01 11:44 (UTC+8)" in text
    assert "template" in text
    assert "2026-02-01 11:49 (UTC+8)" in text  # synced five minutes after the window


def test_hostile_text_is_inert(digest_en: Digest) -> None:
    """Scripts, event handlers and javascript:/data: links from GitHub never become markup."""
    html = render_report(_hostile_digest(digest_en), NAV)
    page = parse(html)
    assert not page.attrs("script")
    assert not page.attrs("img")
    for _, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs)
    for link in page.attrs("a"):
        href = (link.get("href") or "").lower()
        assert href.startswith(("https://github.com/", "../", "#"))
    joined = "".join(page.text)
    assert HOSTILE[0] in joined and HOSTILE[1] in joined  # shown as text
    assert "{{ 7*7 }}" in joined  # template syntax in data is not evaluated


def test_figure_is_labelled() -> None:
    """A chart is inline SVG with role="img", its caption and a data table as text alternative."""
    data = sample_data()
    chart = activity_chart(data.window, data.items, data.comments, "en")
    digest = build_digest(sample_analysis(), "en")
    html = render_report(digest, NAV, (Figure("chart-activity", chart, render_svg(chart)),))
    page = parse(html)
    svg = page.attrs("svg")[0]
    assert svg["role"] == "img" and svg["aria-labelledby"] == "chart-activity-caption"
    assert "<?xml" not in html
    assert chart.summary in " ".join(page.text)
    assert len(page.attrs("tr")) == len(chart.x_labels) + 1


def test_first_sentence(digest_en: Digest) -> None:
    """The index shows the summary's first sentence only."""
    sentence = first_sentence(digest_en)
    assert sentence.startswith("The story of this window is attention backend and ROCm:")
    assert sentence.endswith(".") and sentence.count(". ") == 0


def test_repo_index_lists_days_and_pending() -> None:
    """A repository's index links each built day in both languages and lists pending days."""
    page = RepoIndex(
        "vllm-project/vllm",
        "vLLM",
        "https://github.com/vllm-project/vllm",
        (
            DayEntry("2026-02-01", (), pending="the window is still open"),
            DayEntry("2026-01-31", (("zh", "2026-01-31/zh/"), ("en", "2026-01-31/en/"))),
        ),
        feeds=(("en", "feed.en.xml"),),
    )
    html = render_repo_index(page, Nav(root="../../", lang="en"))
    hrefs = [a.get("href") for a in parse(html).attrs("a")]
    assert "2026-01-31/zh/" in hrefs and "2026-01-31/en/" in hrefs
    assert "feed.en.xml" in hrefs
    assert "not built yet: the window is still open" in html


def test_search_page_runs_only_own_scripts() -> None:
    """The search page loads Pagefind's UI from the site itself under a CSP allowing only 'self'."""
    html = render_search(Nav(root="../../", lang="zh"))
    page = parse(html)
    sources = [a.get("src") for a in page.attrs("script")]
    assert sources == ["../../pagefind/pagefind-ui.js", "../../assets/search.js"]
    assert page.attrs("html")[0]["lang"] == "zh-CN"
    csp = next(a for a in page.attrs("meta") if a.get("http-equiv") == "Content-Security-Policy")
    assert "script-src 'self' 'wasm-unsafe-eval'" in (csp.get("content") or "")


def test_no_page_links_outside_github(digest_en: Digest) -> None:
    """Addresses in excerpts are shown as code, never as links (a title's stay the text of its
    item's link): every link of a report page goes to GitHub or within the site."""
    page = parse(render_report(with_outside_text(digest_en), NAV))
    for link in page.attrs("a"):
        href = link.get("href") or ""
        assert href.startswith(("https://github.com/", "../", "#")), href
    html = render_report(with_outside_text(digest_en), NAV)
    for address in TEXT_ADDRESSES:
        assert f"<code>{address}</code>" in html
    assert "<code>torch.compile</code>" not in html


@pytest.mark.parametrize(("lang", "said"), [("zh", "（维护者"), ("en", " (maintainer")])
def test_people_are_shown_with_their_role(lang: str, said: str) -> None:
    """The page says the role of the people a hot discussion names."""
    html = render_report(build_digest(sample_analysis(), lang), NAV)
    assert f">@mgoin</a>{said}" in html


def test_blocks_fragment_links_items_and_people_only() -> None:
    """A fragment of blocks (a feed entry's content): items, people and the site link are
    links; text is escaped and an outside address is code."""
    blocks = (
        Paragraph(
            (
                ItemRef(1, "https://github.com/o/r/pull/1", "Fix <b>"),
                Text(" by "),
                UserRef("ann", "https://github.com/ann"),
                Text(" — see evil.example/x"),
            )
        ),
        BulletList(((Link("https://reports.example.org/o/r/", "all"),),)),
    )
    html = render_blocks(blocks)
    item = '<a href="https://github.com/o/r/pull/1" rel="noopener">#1 Fix &lt;b&gt;</a>'
    assert html.startswith(f"<p>{item}")
    assert '<a href="https://github.com/ann" rel="noopener">@ann</a>' in html
    assert "<code>evil.example/x</code>" in html
    assert '<li><a href="https://reports.example.org/o/r/" rel="noopener">all</a></li>' in html


@pytest.mark.parametrize(("lang", "label"), [("zh", "原文"), ("en", "Original words")])
def test_original_words_are_collapsed_and_escaped(lang: str, label: str) -> None:
    """A line that names a comment by its act keeps the comment's words in a closed
    ``<details>``, escaped as all GitHub text; the report page and a fragment alike."""
    words = "Rebase <b>now</b> & see evil.example/x"
    line = (Text("复现确认。"), Text(words, "original"))
    section = Section("hot", "💬", (BulletList((line,)),))
    digest = dataclasses.replace(build_digest(sample_analysis(), lang), sections=(section,))
    escaped = "Rebase &lt;b&gt;now&lt;/b&gt; &amp; see evil.example/x"
    shown = f'<details class="original"><summary>{label}</summary><q>{escaped}</q></details>'
    assert f"<li>复现确认。{shown}</li>" in render_report(digest, NAV)
    assert shown in render_blocks((BulletList((line,)),), Lang(lang))
    assert "<b>now" not in render_report(digest, NAV)
