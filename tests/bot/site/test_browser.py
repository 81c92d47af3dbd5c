"""The built site of the sample data in headless Chromium: console, links, charts, language,
search, a hostile day, screenshots and an accessibility check; and a scope's pages.

One site, one HTTP server and one browser serve the whole module. Chromium and chromedriver are
Debian's packages (``.ci/run`` installs them); without them these tests skip.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import pytest

from tests.fakes.github import issue_row
from tests.support.scopes import SGLANG, VLLM
from tests.support.site import NOW, build_scope_site, build_site_sync, serve_directory
from tests.support.site_check import chromium, has_chromium
from tests.support.site_check import open_page as _open

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

DAY = "vllm-project/vllm/2026-01-31"
HOSTILE_DAY = "vllm-project/vllm/2026-01-30"
HOSTILE_TITLE = '<script>window.__pwned = 1</script>"><img src=x onerror="window.__pwned = 2">'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample site, with a hostile issue on 2026-01-30."""
    root = tmp_path_factory.mktemp("site")
    created = NOW - timedelta(days=1, hours=2)  # in the 2026-01-30 window
    evil = issue_row("vllm-project/vllm", 99001, created=created, title=HOSTILE_TITLE)
    build_site_sync(root / "site", root / "mirror.db", days=3, issues=[evil])
    return root / "site"


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    with serve_directory(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module, with its console log recorded."""
    if not has_chromium():
        pytest.skip("chromium and chromium-driver are not installed")
    with chromium() as driver:
        yield driver


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(v for k, v in attrs if k == "id" and v)


def _fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode("utf-8", "replace")


PAGES = (
    "",
    "vllm-project/vllm/",
    f"{DAY}/zh/",
    f"{DAY}/en/",
    f"{HOSTILE_DAY}/en/",
    "vllm-project/vllm/2026/01/zh/",
    "vllm-project/vllm/2026/en/",
    "vllm-project/vllm/topics/rocm/en/",
    "search/en/",
    "search/zh/",
)


@pytest.mark.parametrize("path", PAGES)
def test_no_console_errors(browser: Any, base_url: str, path: str) -> None:
    """Every kind of page loads without a console error (CSP violations included)."""
    assert _open(browser, base_url + path) == []


def test_every_internal_link_and_anchor_resolves(browser: Any, base_url: str) -> None:
    """From the front page, every link within the site leads to a page, every #anchor to an id."""
    seen, checked = _crawl(browser, base_url)
    assert f"{base_url}{DAY}/en/" in seen and f"{base_url}{DAY}/zh/" in seen
    for archive in ("2026/01/en/", "2026/zh/", "topics/rocm/zh/", "topics/rocm/en/"):
        assert f"{base_url}vllm-project/vllm/{archive}" in seen, archive
    assert checked > 50


def _crawl(browser: Any, base_url: str) -> tuple[set[str], int]:
    """Every page reached from the front page, and how many links were checked: each leads
    to a page (or file) and each #anchor to an id there."""
    seen: set[str] = set()
    queue = [base_url]
    checked = 0
    while queue:
        page = queue.pop()
        if page in seen:
            continue
        seen.add(page)
        if not page.endswith("/"):
            continue  # a feed or an asset: fetched below, not crawled
        _open(browser, page)
        hrefs = browser.execute_script(
            "return Array.from(document.querySelectorAll('a[href], link[href]'), a => a.href)"
        )
        for href in hrefs:
            if not href.startswith(base_url):
                assert href.startswith(("https://github.com/", "data:")), href
                continue
            target, fragment = urldefrag(href)
            status, body = _fetch(target)
            assert status == 200, href
            checked += 1
            if fragment:
                parser = _Ids()
                parser.feed(body)
                assert fragment in parser.ids, href
            if "?" not in target and target not in seen:
                queue.append(target)
    return seen, checked


@pytest.mark.parametrize(
    "path", [f"{DAY}/en/", "vllm-project/vllm/", "vllm-project/vllm/topics/rocm/zh/"]
)
def test_charts_render_with_a_size(browser: Any, base_url: str, path: str) -> None:
    """The day's activity chart and the repository's charts are drawn with a non-zero size."""
    _open(browser, base_url + path)
    charts = browser.find_elements(By.CSS_SELECTOR, "figure.chart svg")
    assert charts
    for chart in charts:
        assert chart.size["width"] > 200 and chart.size["height"] > 50


def test_zh_page_is_chinese(browser: Any, base_url: str) -> None:
    """The zh report declares lang="zh-CN" and shows its headings in Chinese."""
    _open(browser, f"{base_url}{DAY}/zh/")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN"
    headings = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "section > h2")]
    assert "📊 每日开发状态摘要" in headings and "📋 附录：详细数据列表" in headings


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_search_finds_rocm(browser: Any, base_url: str, lang: str) -> None:
    """Searching "ROCm" on the static site lists the sample day's report (from its month's
    part of the index) and the ROCm topic page (from the main part)."""
    _open(browser, f"{base_url}search/{lang}/?q=ROCm")
    links = WebDriverWait(browser, 15).until(
        lambda d: [
            a.get_attribute("href")
            for a in d.find_elements(By.CSS_SELECTOR, ".pagefind-ui__result-link")
        ]
    )
    assert f"{base_url}{DAY}/{lang}/" in links
    assert f"{base_url}vllm-project/vllm/topics/rocm/{lang}/" in links


def test_hostile_day_runs_no_script(browser: Any, base_url: str) -> None:
    """An issue titled with a script and an onerror image shows as text and runs nothing."""
    assert _open(browser, f"{base_url}{HOSTILE_DAY}/en/") == []
    assert browser.execute_script("return window.__pwned === undefined")
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - reading it is the check
    text = browser.execute_script("return document.querySelector('main').textContent")
    assert HOSTILE_TITLE in text
    assert not browser.find_elements(By.CSS_SELECTOR, "main img, main script")


@pytest.mark.parametrize(("name", "width", "height"), [("desktop", 1280, 900), ("phone", 390, 844)])
def test_screenshots(
    browser: Any, base_url: str, tmp_path: Path, name: str, width: int, height: int
) -> None:
    """The report and index fit the width (no sideways scrolling); screenshots are saved."""
    browser.set_window_size(width, height)
    try:
        for path, label in ((f"{DAY}/zh/", "report-zh"), ("vllm-project/vllm/", "index")):
            _open(browser, base_url + path)
            scroll = browser.execute_script("return document.documentElement.scrollWidth")
            inner = browser.execute_script("return window.innerWidth")
            assert scroll <= inner, (path, scroll, inner)
            shot = tmp_path / f"{label}-{name}.png"
            assert browser.save_screenshot(str(shot))
            assert shot.stat().st_size > 10_000
    finally:
        browser.set_window_size(1280, 900)


def test_dark_theme_follows_the_system(browser: Any, base_url: str) -> None:
    """With prefers-color-scheme: dark the page turns dark; without it, light."""
    url = f"{base_url}{DAY}/en/"
    background = "return getComputedStyle(document.body).backgroundColor"
    try:
        browser.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
        )
        _open(browser, url)
        dark = browser.execute_script(background)
        browser.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "light"}]},
        )
        _open(browser, url)
        light = browser.execute_script(background)
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert light == "rgb(255, 255, 255)" and dark == "rgb(13, 17, 23)"


@pytest.mark.parametrize(
    "path",
    [
        f"{DAY}/zh/",
        f"{DAY}/en/",
        "vllm-project/vllm/",
        "vllm-project/vllm/2026/01/zh/",
        "vllm-project/vllm/topics/rocm/en/",
    ],
)
def test_accessibility(browser: Any, base_url: str, path: str) -> None:
    """axe-core finds no serious or critical accessibility violation."""
    axe_module = pytest.importorskip("axe_selenium_python")
    _open(browser, base_url + path)
    axe = axe_module.Axe(browser)
    axe.inject()
    results = axe.run()
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == []


def test_topic_feeds_are_served(base_url: str) -> None:
    """Each topic feed is served as Atom and lists the sample day's ROCm items."""
    for lang in ("zh", "en"):
        status, body = _fetch(urljoin(base_url, f"vllm-project/vllm/topics/rocm/feed.{lang}.xml"))
        assert status == 200
        assert f"urn:vllm-report:vllm-project/vllm:topic:rocm:2026-01-31:{lang}" in body


def test_feed_is_served(base_url: str) -> None:
    """The Atom feed of each language is served and lists the sample day."""
    for lang in ("zh", "en"):
        status, body = _fetch(urljoin(base_url, f"vllm-project/vllm/feed.{lang}.xml"))
        assert status == 200
        assert f"urn:vllm-report:vllm-project/vllm:2026-01-31:{lang}" in body


# -- a scope over two repositories sharing item numbers ----------------------------------------


@pytest.fixture(scope="module")
def scope_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site of vLLM and the scope ``serving`` (vLLM and SGLang), served."""
    root = tmp_path_factory.mktemp("scope-site")
    asyncio.run(build_scope_site(root / "site", root / "mirror.db"))
    with serve_directory(root / "site") as url:
        yield url


def test_scope_index_and_day_page(browser: Any, scope_url: str) -> None:
    """From the front page to the scope's index to its day: no console error on the way,
    every day listed, the day's items linked to both repositories, each named with its own."""
    assert _open(browser, scope_url) == []
    browser.find_element(By.CSS_SELECTOR, 'ul.scopes a[href="scopes/serving/"]').click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url == f"{scope_url}scopes/serving/")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    assert browser.find_element(By.TAG_NAME, "h1").text == "Serving 开发动态报告"
    days = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "ol.days h3")]
    assert days == ["2026-03-11", "2026-03-10", "2026-03-09"]
    assert browser.find_elements(By.CSS_SELECTOR, "figure.chart svg")
    browser.find_element(By.CSS_SELECTOR, 'a[href="2026-03-10/en/"]').click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("2026-03-10/en/"))
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('a[href]'), a => [a.href, a.textContent])"
    )
    for repo in (VLLM, SGLANG):
        named = {text for href, text in links if href == f"https://github.com/{repo}/issues/1"}
        assert named and all(text.startswith(f"{repo}#1") for text in named), named
    chart = browser.find_element(By.CSS_SELECTOR, "figure.chart svg")
    assert chart.size["width"] > 200
    back = browser.find_element(By.LINK_TEXT, "« Back to Serving Reports")
    assert back.get_attribute("href") == f"{scope_url}scopes/serving/"


def test_scope_pages_link_within_the_site(browser: Any, scope_url: str) -> None:
    """Every link of the scope's pages (days, months, topics, feeds) resolves."""
    seen, checked = _crawl(browser, scope_url)
    for page in ("2026-03-10/zh/", "2026-03-09/en/", "2026/03/en/", "topics/rocm/zh/"):
        assert f"{scope_url}scopes/serving/{page}" in seen, page
    assert checked > 30
