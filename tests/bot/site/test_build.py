"""The site builder over a real runtime and a fake GitHub: layout, pending days, incremental
builds, the same bytes for the same data."""

from __future__ import annotations

import filecmp
import json
import re
from datetime import timedelta
from functools import partial
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from bot.site.output import MANIFEST
from config.settings import ExcludeConfig
from tests.fakes.github import FakeGitHub, RecordedRequest, issue_row
from tests.support.clock import Clock
from tests.support.scope_core import scope_config
from tests.support.scopes import COUNTS, FILTERED_TOTAL, SGLANG, VLLM
from tests.support.scopes import NOW as SCOPE_NOW
from tests.support.site import NOW, build_scope_site, build_site
from tests.support.site_check import check_site

REPO_DIR = "vllm-project/vllm"
DAYS = ("2026-01-29", "2026-01-30", "2026-01-31")
ATOM = "{http://www.w3.org/2005/Atom}"


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


async def test_site_layout(tmp_path: Path) -> None:
    """The site has its indexes, a page per day and language, feeds, assets and search."""
    report = await build_site(tmp_path / "site", tmp_path / "m.db")
    files = _files(tmp_path / "site")
    for day in DAYS:
        for lang in ("zh", "en"):
            assert f"{REPO_DIR}/{day}/{lang}/index.html" in files
    assert {
        "index.html",
        f"{REPO_DIR}/index.html",
        "search/zh/index.html",
        "search/en/index.html",
    } <= files
    assert {f"{REPO_DIR}/feed.zh.xml", f"{REPO_DIR}/feed.en.xml", "assets/style.css"} <= files
    assert "pagefind/pagefind-ui.js" in files and report.searchable
    archive = 2 + 2 + 2  # the month and the year, the topic (rocm), in each language
    assert report.pages == 6 + 1 + 3 + archive and report.rendered == 6 and report.pending == 1


async def test_day_in_progress_is_pending_never_invented(tmp_path: Path) -> None:
    """The day whose window is still open is listed as pending and has no page."""
    await build_site(tmp_path / "site", tmp_path / "m.db", search=False)
    site = tmp_path / "site"
    assert not (site / REPO_DIR / "2026-02-01").exists()
    index = (site / REPO_DIR / "index.html").read_text("utf-8")
    assert "2026-02-01" in index and "窗口尚未结束" in index
    assert index.index("2026-01-31") < index.index("2026-01-30")  # newest first


async def test_same_data_same_bytes(tmp_path: Path) -> None:
    """Two builds of the same data, from two empty mirrors, write identical files."""
    await build_site(tmp_path / "a", tmp_path / "a.db")
    await build_site(tmp_path / "b", tmp_path / "b.db")
    files = _files(tmp_path / "a")
    assert files == _files(tmp_path / "b")
    _, mismatch, errors = filecmp.cmpfiles(
        tmp_path / "a", tmp_path / "b", sorted(files), shallow=False
    )
    assert not mismatch and not errors


async def test_rebuild_reuses_unchanged_days(tmp_path: Path) -> None:
    """A rebuild renders no unchanged day; a new day renders itself and its neighbour, and the
    day that left the span stays in the archive."""
    clock = Clock(NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"
    await build_site(out, db, clock=clock, search=False)
    again = await build_site(out, db, clock=clock, search=False)
    assert (again.rendered, again.reused) == (0, 6)
    clock.advance(timedelta(days=1))
    later = await build_site(out, db, clock=clock, search=False)
    assert (out / REPO_DIR / "2026-02-01" / "en" / "index.html").is_file()
    assert (out / REPO_DIR / "2026-01-29" / "en" / "index.html").is_file()  # the archive keeps it
    assert later.rendered == 4  # the new day, and 01-31 whose "next day" link appeared
    assert later.reused == 4
    january = (out / REPO_DIR / "2026" / "01" / "en" / "index.html").read_text("utf-8")
    assert 'href="../../../2026-01-29/en/"' in january  # the kept day is in its month
    # a one-day build keeps 01-31 from its record: its month, its topic items and feed entry stay
    narrow = await build_site(out, db, days=1, clock=clock, search=False)
    assert narrow.rendered == 0
    topic = (out / REPO_DIR / "topics" / "rocm" / "en" / "index.html").read_text("utf-8")
    assert 'href="../../../2026-01-31/en/#topic-rocm"' in topic and "#33492" in topic
    feed = (out / REPO_DIR / "topics" / "rocm" / "feed.zh.xml").read_text("utf-8")
    assert "topic:rocm:2026-01-31:zh" in feed
    february = (out / REPO_DIR / "2026" / "02" / "zh" / "index.html").read_text("utf-8")
    assert 'href="../../../2026-02-01/zh/"' in february


async def test_sync_failure_keeps_published_days(tmp_path: Path) -> None:
    """When GitHub cannot be reached, days built before stay and nothing new is invented."""
    clock = Clock(NOW)
    out = tmp_path / "site"
    await build_site(out, tmp_path / "m.db", clock=clock, search=False, days=2)
    clock.advance(timedelta(days=1))
    async with FakeGitHub(clock=clock) as github:
        github.exhaust()
        github.add_repo("vllm-project/vllm")
        from bot.compose import build_runtime
        from bot.compose.site import site_builder
        from bot.site import SiteOptions
        from config.settings import GitHubSettings, RedisSettings, Settings, load_config

        settings = Settings(
            github=GitHubSettings(api_url=github.url, max_retries=0),
            db=str(tmp_path / "other.db"),
            redis=RedisSettings(url=None),
        )
        async with build_runtime(settings, load_config(), clock=clock) as runtime:
            options = SiteOptions(out=out, repos=("vllm-project/vllm",), days=2, search=False)
            report = await site_builder(runtime).build(options)
    assert (out / REPO_DIR / "2026-01-31" / "zh" / "index.html").is_file()  # kept
    assert not (out / REPO_DIR / "2026-02-01").exists()  # not invented
    index = (out / REPO_DIR / "index.html").read_text("utf-8")
    assert "GitHub 的速率限制已用尽" in index  # the site's words, in its first language
    assert "try again" not in index.lower()
    assert report.pending == 2  # the day that failed and the day in progress


async def test_hostile_issue_is_escaped_on_the_page(tmp_path: Path) -> None:
    """An issue titled with a script tag shows as text on the day's page."""
    title = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    evil = issue_row("vllm-project/vllm", 99001, created=NOW - timedelta(hours=3), title=title)
    await build_site(tmp_path / "site", tmp_path / "m.db", issues=[evil], search=False, days=1)
    html = (tmp_path / "site" / REPO_DIR / "2026-01-31" / "en" / "index.html").read_text("utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html and "<img" not in html


async def test_repo_index_holds_30_days_then_months(tmp_path: Path) -> None:
    """Over 33 days (December into January) the index lists the day in progress and the last
    30 days, then each month and year; every day, older ones included, is on its month's page."""
    report = await build_site(tmp_path / "site", tmp_path / "m.db", days=33, search=False)
    repo = tmp_path / "site" / REPO_DIR
    index = (repo / "index.html").read_text("utf-8")
    days_part, _, archive_part = index.partition('id="months"')
    listed = re.findall(r"<h3>(\d{4}-\d\d-\d\d)</h3>", days_part)
    assert listed[0] == "2026-02-01" and listed[1] == "2026-01-31"
    assert len(listed) == 31 and listed[-1] == "2026-01-02"
    assert "2025-12-30" not in days_part
    months = re.findall(r'<a href="(\d{4}/\d\d/zh/)">', archive_part)
    assert months == ["2026/01/zh/", "2025/12/zh/"]
    assert re.findall(r'<a href="(\d{4}/zh/)">', archive_part) == ["2026/zh/", "2025/zh/"]
    december = (repo / "2025" / "12" / "en" / "index.html").read_text("utf-8")
    assert re.findall(r'href="\.\./\.\./\.\./(2025-12-\d\d)/en/"', december) == [
        "2025-12-30",
        "2025-12-31",
    ]
    assert (repo / "2025-12-30" / "en" / "index.html").is_file()
    assert (repo / "topics" / "rocm" / "en" / "index.html").is_file()
    assert report.pending == 1


async def test_rebuild_with_languages_given_as_strings_renders_nothing(tmp_path: Path) -> None:
    """Languages given as plain strings (the first build's digests) or coming back from the
    digest cache as the enum hash the same: an unchanged rebuild renders no page."""
    clock = Clock(NOW)
    site, db = tmp_path / "site", tmp_path / "m.db"
    first = await build_site(site, db, days=1, langs=("zh", "en"), clock=clock, search=False)
    again = await build_site(site, db, days=1, langs=("zh", "en"), clock=clock, search=False)
    assert first.rendered == 2 and again.rendered == 0 and again.reused == 2


async def test_rebuild_asks_only_for_the_days_new_data_touches(tmp_path: Path) -> None:
    """An unchanged rebuild asks for no digest and renders no page; a new day asks for itself
    and the neighbour whose "next day" link appeared; an old day's issue closed since
    re-digests the day that shows it (with its later fate), never the days around it."""
    clock = Clock(NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"
    opened = NOW - timedelta(days=2, minutes=30)  # in 2026-01-30's window (Shanghai 11:21 cut)
    old = issue_row(REPO_DIR, 99002, created=opened, title="A late report")
    first = await build_site(out, db, clock=clock, days=5, issues=[old], search=False)
    assert first.digests == 10  # 01-27 .. 01-31 in two languages
    page = out / REPO_DIR / "2026-01-30" / "en" / "index.html"
    assert "A late report" in page.read_text("utf-8")
    again = await build_site(out, db, clock=clock, days=5, issues=[old], search=False)
    assert (again.digests, again.rendered, again.reused) == (0, 0, 10)
    clock.advance(timedelta(days=1))
    later = await build_site(out, db, clock=clock, days=5, issues=[old], search=False)
    assert later.digests == 4  # the new day 02-01 and 01-31, its neighbour
    assert later.rendered == 4 and (out / REPO_DIR / "2026-02-01" / "zh" / "index.html").is_file()
    clock.advance(timedelta(days=1))
    edited = NOW + timedelta(days=7)  # after the sample's newest update: the sync fetches it
    closed = issue_row(
        REPO_DIR, 99002, created=opened, closed=clock(), updated=edited, title="A late report"
    )
    touched = await build_site(out, db, clock=clock, days=5, issues=[closed], search=False)
    # 01-30, which shows the issue, 01-31 and 02-01, which show items of the sample closed
    # since, and the new day 02-02; 01-29 is taken as it was
    assert touched.digests == 8
    assert "closed" in page.read_text("utf-8").split("A late report", 1)[1][:200].lower()
    assert touched.reused >= 6


async def test_an_old_days_item_relabelled_since_rebuilds_the_day_that_lists_it(
    tmp_path: Path,
) -> None:
    """An issue of an old day given the ``rocm`` label later: the day listing it is built
    again (its focus topic now holds the issue); the day before it is kept as it was."""
    clock = Clock(NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"
    opened = NOW - timedelta(days=4, minutes=30)  # in 2026-01-28's window
    title = "Slow startup on a cold cache"
    await build_site(
        out,
        db,
        clock=clock,
        days=5,
        issues=[issue_row(REPO_DIR, 99003, created=opened, title=title)],
        search=False,
    )
    page, before = out / REPO_DIR / "2026-01-28" / "en" / "index.html", {}
    for day in ("2026-01-27", "2026-01-28"):
        before[day] = (out / REPO_DIR / day / "en" / "index.html").read_bytes()
    assert title not in _section(page.read_text("utf-8"), "topic-rocm")
    relabelled = issue_row(
        REPO_DIR,
        99003,
        created=opened,
        updated=NOW + timedelta(days=7),  # after the sample's newest update: the sync fetches it
        title=title,
        labels=("rocm",),
    )
    clock.advance(timedelta(hours=1))  # the mirror syncs again; the same day is in progress
    await build_site(out, db, clock=clock, days=5, issues=[relabelled], search=False)
    assert page.read_bytes() != before["2026-01-28"]
    assert title in _section(page.read_text("utf-8"), "topic-rocm")
    assert (out / REPO_DIR / "2026-01-27" / "en" / "index.html").read_bytes() == before[
        "2026-01-27"
    ]


def _section(html: str, anchor: str) -> str:
    start = html.index(f'id="{anchor}"')
    return html[start : html.index("</section>", start)]


async def test_new_day_after_a_history_older_than_the_mirror_reads_only_the_streams(
    tmp_path: Path,
) -> None:
    """A history reaching before the mirror's backfill, whose search GitHub served only in
    part: the rebuild after one new day asks the Search API nothing again and waits for no
    rate limit; it digests the new day and its neighbour only."""
    clock = Clock(NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"

    def prepare(github: FakeGitHub) -> None:
        github.incomplete_search = True  # the old span is never marked as fetched in full
        github.leave(900)  # healthy, but short of streaming the whole history back

    build = partial(
        build_site, out, db, clock=clock, days=5, backfill_days=2, token="t", prepare=prepare
    )
    first: list[RecordedRequest] = []
    await build(requests=first, search=False)
    assert any(r.path == "/search/issues" for r in first)  # the days before the mirror
    clock.advance(timedelta(days=1))
    requests: list[RecordedRequest] = []
    sleeps: list[float] = []
    later = await build(requests=requests, sleeps=sleeps, search=False)
    assert [r.path for r in requests if r.path.startswith("/search/")] == []
    assert sleeps == []
    assert later.digests == 4  # 02-01 and 01-31 in two languages
    assert (out / REPO_DIR / "2026-02-01" / "en" / "index.html").is_file()


async def test_search_index_is_kept_when_no_page_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pagefind runs again only over a part whose pages changed: an unchanged rebuild keeps
    the whole index; a new day's pages are indexed."""
    import bot.site.search as search

    runs: list[Path] = []
    real = search._run

    async def counted(binary: Path, stage: Path, bundle: Path) -> bool:
        runs.append(bundle)
        return await real(binary, stage, bundle)

    monkeypatch.setattr(search, "_run", counted)
    clock = Clock(NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"
    await build_site(out, db, clock=clock)
    first = len(runs)
    entry = (out / "pagefind" / "pagefind-entry.json").read_bytes()
    again = await build_site(out, db, clock=clock)
    assert len(runs) == first and again.searchable
    assert (out / "pagefind" / "pagefind-entry.json").read_bytes() == entry
    clock.advance(timedelta(days=1))
    await build_site(out, db, clock=clock)
    assert any(bundle.name.startswith("vllm-project-vllm-2026-02") for bundle in runs[first:])


async def test_repository_feed_carries_the_newest_days_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The repository's feed is bounded: with room for two days, the newest two of three."""
    import bot.site.build as build

    monkeypatch.setattr(build, "FEED_DAYS", 2)
    await build_site(tmp_path / "site", tmp_path / "m.db", search=False)
    feed = (tmp_path / "site" / REPO_DIR / "feed.en.xml").read_text("utf-8")
    ids = re.findall(r"<id>urn:vllm-report:vllm-project/vllm:(\d{4}-\d\d-\d\d):en</id>", feed)
    assert ids == ["2026-01-31", "2026-01-30"]


async def test_a_renamed_repository_moves_with_its_old_days(tmp_path: Path) -> None:
    """Built, then renamed on GitHub: the next build puts every day, the ones published under
    the old name included, under the new name, and the site's index names it."""
    clock = Clock(NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"
    await build_site(out, db, clock=clock, search=False)
    clock.advance(timedelta(days=1))
    new = "vllm-project/vllm-next"
    report = await build_site(out, db, clock=clock, search=False, days=1, renamed_to=new)
    for day in (*DAYS, "2026-02-01"):
        page = out / new / day / "en" / "index.html"
        assert page.is_file(), day
        assert f"https://github.com/{new}" in page.read_text("utf-8")
    assert not (out / REPO_DIR).exists()
    site_index = (out / "index.html").read_text("utf-8")
    assert f'href="{new}/"' in site_index and f'href="{REPO_DIR}/"' not in site_index
    month = (out / new / "2026" / "01" / "en" / "index.html").read_text("utf-8")
    assert 'href="../../../2026-01-29/en/"' in month
    assert report.pending == 1
    marks = json.loads((out / MANIFEST).read_text("utf-8"))["repos"]
    assert set(marks) == {new}  # the next build follows the repository under its new name


# -- a scope: two repositories sharing item numbers, under scopes/serving/ --------------------

SCOPE_DIR = "scopes/serving"
SCOPE_DAY = f"{SCOPE_DIR}/2026-03-10"


def _counts(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<span class="n">(\d+)</span>', html)]


async def test_scope_has_the_pages_of_a_repository(tmp_path: Path) -> None:
    """A configured scope gets its index, day pages in each language, feeds and archive under
    ``scopes/{name}/``, beside its repository's own; the root lists both."""
    report = await build_scope_site(tmp_path / "site", tmp_path / "m.db")
    site = tmp_path / "site"
    files = _files(site)
    for day in ("2026-03-09", "2026-03-10"):
        for lang in ("zh", "en"):
            assert f"{SCOPE_DIR}/{day}/{lang}/index.html" in files
            assert f"{REPO_DIR}/{day}/{lang}/index.html" in files
    assert {
        f"{SCOPE_DIR}/index.html",
        f"{SCOPE_DIR}/feed.zh.xml",
        f"{SCOPE_DIR}/feed.en.xml",
        f"{SCOPE_DIR}/2026/03/en/index.html",
        f"{SCOPE_DIR}/topics/rocm/zh/index.html",
    } <= files
    assert report.pending == 2  # the day in progress, of the repository and of the scope
    index = (site / SCOPE_DIR / "index.html").read_text("utf-8")
    assert index.index("2026-03-11") < index.index("2026-03-10") < index.index("2026-03-09")
    assert 'href="2026-03-10/en/"' in index and 'href="2026-03-09/zh/"' in index
    assert "vllm-project/vllm, sgl-project/sglang" in index
    root = (site / "index.html").read_text("utf-8")
    repos, scopes = root.split('<ul class="scopes">')
    assert 'href="vllm-project/vllm/"' in repos and "生态报告" in repos
    assert 'href="scopes/serving/"' in scopes and 'href="scopes/serving/2026-03-10/zh/"' in scopes
    # the latest day's totals over both repositories, after filters, as the scope's index says
    assert _counts(scopes) == list(FILTERED_TOTAL.as_dict().values())
    assert _counts(repos) == list(COUNTS[VLLM].as_dict().values())


async def test_scope_day_links_each_item_to_its_own_repository(tmp_path: Path) -> None:
    """The scope's day page names and links the items of both repositories: a number both
    have appears twice, each with its repository; the filtered bumps appear in neither."""
    await build_scope_site(tmp_path / "site", tmp_path / "m.db", repos=())
    for lang in ("en", "zh"):
        page = (tmp_path / "site" / SCOPE_DAY / lang / "index.html").read_text("utf-8")
        for repo in (VLLM, SGLANG):
            assert f'href="https://github.com/{repo}/issues/1"' in page
            assert f">{repo}#1 " in page
            assert f"https://github.com/{repo}/pull/3" not in page  # a dependency bump
        assert 'href="https://github.com/vllm-project/vllm/pull/2"' in page
        assert 'href="https://github.com/sgl-project/sglang/pull/2"' in page
        assert 'href="https://github.com/sgl-project/sglang" rel="noopener">' in page  # sources
    assert not (tmp_path / "site" / REPO_DIR).exists()  # only what was asked for


async def test_scope_feed_is_atom_with_both_repositories(tmp_path: Path) -> None:
    """The scope's feed is valid Atom: one entry per day, newest first, linking its page,
    its summary citing items of both repositories."""
    await build_scope_site(
        tmp_path / "site", tmp_path / "m.db", repos=(), site_url="https://r.example/"
    )
    root = ET.parse(tmp_path / "site" / SCOPE_DIR / "feed.en.xml").getroot()
    assert root.tag == f"{ATOM}feed"
    assert root.findtext(f"{ATOM}id") == "urn:vllm-report:scopes/serving:en"
    assert root.findtext(f"{ATOM}title") == "Serving Development Reports"
    entries = root.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}id") for e in entries] == [
        f"urn:vllm-report:scopes/serving:{day}:en" for day in ("2026-03-10", "2026-03-09")
    ]
    link = entries[0].find(f"{ATOM}link")
    assert link is not None and link.get("href") == f"https://r.example/{SCOPE_DAY}/en/"
    content = entries[0].findtext(f"{ATOM}content") or ""
    assert "https://github.com/vllm-project/vllm/issues/1" in content
    assert "https://github.com/sgl-project/sglang/issues/1" in content


async def test_scope_rebuild_follows_each_of_its_repositories(tmp_path: Path) -> None:
    """An unchanged rebuild asks for no digest; news in one of the scope's repositories
    re-digests the scope's day it falls in, not the repository left alone."""
    clock = Clock(SCOPE_NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"
    first = await build_scope_site(out, db, clock=clock)
    assert first.digests == 8  # two days, two languages, the repository and the scope
    again = await build_scope_site(out, db, clock=clock)
    assert (again.digests, again.rendered) == (0, 0)
    # the topic's page, made from the days' records, names each item with its repository
    topic = (out / SCOPE_DIR / "topics" / "rocm" / "en" / "index.html").read_text("utf-8")
    for repo in (VLLM, SGLANG):
        assert f'href="https://github.com/{repo}/issues/1" rel="noopener">{repo}#1 ' in topic
    clock.advance(timedelta(hours=2))
    late = issue_row(
        SGLANG, 7, created=SCOPE_NOW - timedelta(hours=5), updated=clock(), title="A late one"
    )
    news = await build_scope_site(out, db, clock=clock, issues={SGLANG: [late]})
    assert news.digests == 2  # the scope's 2026-03-10, in each language; vLLM's taken as it was
    page = (out / SCOPE_DAY / "en" / "index.html").read_text("utf-8")
    assert "sgl-project/sglang#7 A late one" in page


async def test_manifest_keeps_each_mirror_under_the_keys_earlier_sites_have(
    tmp_path: Path,
) -> None:
    """The manifest records the mirror a repository's pages read under ``owner/name`` and each
    of a scope's under ``scopes/{name}/owner/name``: a site an earlier version built is reused."""
    out = tmp_path / "site"
    await build_scope_site(out, tmp_path / "m.db", scopes=("serving",))
    marks = json.loads((out / MANIFEST).read_text("utf-8"))["repos"]
    assert set(marks) == {VLLM, f"{SCOPE_DIR}/{VLLM}", f"{SCOPE_DIR}/{SGLANG}"}
    assert all(mark["synced_at"] for mark in marks.values())


async def test_scope_rebuild_follows_its_own_configuration(tmp_path: Path) -> None:
    """A scope whose filters change is built again; the repositories' pages are not."""
    clock = Clock(SCOPE_NOW)
    out, db = tmp_path / "site", tmp_path / "m.db"
    await build_scope_site(out, db, clock=clock)
    config = scope_config()
    serving = config.scopes["serving"].model_copy(update={"exclude": ExcludeConfig()})
    unfiltered = config.model_copy(update={"scopes": {**config.scopes, "serving": serving}})
    again = await build_scope_site(out, db, clock=clock, config=unfiltered)
    assert again.digests == 4  # the scope's two days in two languages, vLLM's taken as they were
    page = (out / SCOPE_DAY / "en" / "index.html").read_text("utf-8")
    assert "https://github.com/sgl-project/sglang/pull/3" in page  # the bump, no longer left out


async def test_every_page_and_feed_is_well_formed_and_every_link_lands(tmp_path: Path) -> None:
    """A reader's tools find nothing wrong anywhere in the site: every page well formed with its
    language and unique ids, every internal link and fragment landing, every feed Atom; a
    link broken by hand is found."""
    out = tmp_path / "site"
    await build_site(out, tmp_path / "m.db", days=3)
    checked = check_site(out)
    assert checked.errors == []
    assert checked.pages >= 16 and checked.feeds >= 4 and checked.links > 150
    day = out / REPO_DIR / "2026-01-31" / "en" / "index.html"
    day.write_text(day.read_text("utf-8").replace('href="../zh/"', 'href="../fr/"', 1), "utf-8")
    assert any("../fr/ lands nowhere" in e for e in check_site(out).errors)
