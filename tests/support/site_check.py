"""Checks of a built report website as a reader's tools see it: every page well formed with
its language, unique ids and links that land (file and fragment); every feed Atom whose
entries link into the site; and a sample of pages in headless Chromium with no console error.

The tests use it on small sites; ``bench/bench_site.py --check`` on a 1,100-day one.
"""

from __future__ import annotations

import posixpath
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

ATOM = "{http://www.w3.org/2005/Atom}"
VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
}  # fmt: skip
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)


@dataclass
class SiteCheck:
    """What a check of a site found."""

    pages: int = 0
    feeds: int = 0
    links: int = 0  # links into the site followed (files and fragments)
    errors: list[str] = field(default_factory=list)


class _Page(HTMLParser):
    """One page's tags in order (open elements closed), ids, links and language."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.lang = ""
        self.errors: list[str] = []
        self.svg = 0  # inside inline SVG, self-closing tags are XML's

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "html":
            self.lang = found.get("lang") or ""
        if found.get("id"):
            self.ids.append(str(found["id"]))
        for name in ("href", "src"):
            if found.get(name) and tag in ("a", "link", "script", "img"):
                self.links.append(str(found[name]))
        if tag == "svg":
            self.svg += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.svg or tag in VOID:
            self.handle_starttag(tag, attrs)
            if tag not in VOID:
                self.stack.pop()
        else:
            self.errors.append(f"<{tag}/> is not a void element")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else ''}>")
            if tag in self.stack:
                del self.stack[len(self.stack) - 1 - self.stack[::-1].index(tag) :]
            return
        self.stack.pop()
        if tag == "svg":
            self.svg -= 1


def check_site(root: Path) -> SiteCheck:
    """Check every HTML page and Atom feed under ``root`` (the search index aside)."""
    result = SiteCheck()
    pages: dict[str, _Page] = {}
    for path in sorted(root.rglob("*.html")):
        name = path.relative_to(root).as_posix()
        if name.startswith("pagefind"):
            continue
        page = _Page()
        page.feed(path.read_text("utf-8"))
        page.close()
        pages[name] = page
        result.pages += 1
        where = f"{name}: "
        result.errors += [where + e for e in page.errors]
        if page.stack:
            result.errors.append(f"{where}unclosed {page.stack}")
        if page.lang not in ("zh-CN", "en"):
            result.errors.append(f"{where}lang={page.lang!r}")
        doubled = {i for i in page.ids if page.ids.count(i) > 1}
        if doubled:
            result.errors.append(f"{where}ids twice: {sorted(doubled)}")
    for name, page in pages.items():
        for link in page.links:
            result.links += _follow(root, name, link, pages, result.errors)
    for path in sorted(root.rglob("*.xml")):
        name = path.relative_to(root).as_posix()
        result.feeds += 1
        try:
            feed = ET.parse(path).getroot()
        except ET.ParseError as exc:
            result.errors.append(f"{name}: {exc}")
            continue
        if feed.tag != f"{ATOM}feed" or feed.find(f"{ATOM}updated") is None:
            result.errors.append(f"{name}: not an Atom feed")
        for entry in feed.iter(f"{ATOM}entry"):
            fields = [entry.find(f"{ATOM}{k}") for k in ("id", "title", "updated")]
            if any(f is None or not (f.text or "").strip() for f in fields):
                result.errors.append(f"{name}: an entry without id, title or updated")
            for link in entry.iter(f"{ATOM}link"):
                result.links += _follow(root, name, link.get("href", ""), pages, result.errors)
    return result


def _follow(root: Path, here: str, link: str, pages: dict[str, _Page], errors: list[str]) -> int:
    """Whether ``link`` from ``here`` lands on a file of the site (and its fragment on an id
    there); 0 for a link out of the site."""
    if urlsplit(link).scheme or link.startswith("//"):
        return 0
    target, fragment = urldefrag(link.split("?", 1)[0])
    file = here
    if target:
        file = posixpath.normpath(posixpath.join(posixpath.dirname(here), target))
        if file == ".." or file.startswith("../"):
            errors.append(f"{here}: {link} leaves the site")
            return 1
        if target.endswith("/") or target == ".":
            file = "index.html" if file == "." else f"{file}/index.html"
    if not (root / file).is_file():
        errors.append(f"{here}: {link} lands nowhere")
        return 1
    if fragment and file in pages and fragment not in pages[file].ids:
        errors.append(f"{here}: {link} has no #{fragment} there")
    return 1


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium with its console log recorded (Debian's chromium and driver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="vllm-report-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_window_size(1280, 900)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def has_chromium() -> bool:
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


def open_page(driver: Any, url: str) -> list[dict[str, Any]]:
    """Open ``url``; the console entries it logged at error level."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url)
    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
