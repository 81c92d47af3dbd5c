"""Benchmark of the report website: an N-day (``--days``), two-language site from a warm mirror,
an unchanged rebuild, then the incremental rebuild after one new day, and the one after the next
day over the last 30 days only (what ``serve`` rebuilds after a daily post: older days are kept
from the archive); the output's size per day and the projection to a 1,100-day history.

Synthetic vLLM-sized activity (``tests/support/synthetic.py``, ~150 items and ~500 comments a
day) is served by the fake GitHub; the real runtime (SQLite mirror, sync gate, template writer,
digest cache) and the real site builder do the rest. The mirror is warmed first (one sync of
the whole span), so the figures are the site's: digests, pages, charts and the Pagefind index.
A rebuild reuses every day its new data does not touch, so only the full build is projected to
1,100 days (``--days 1100`` measures it all in about 15 minutes, most of it generating and
mirroring the synthetic history).
Wall times depend on what else the machine runs; CPU seconds (this process and Pagefind) less so.
The clock is injected: the full build and an unchanged rebuild run the day before
``DEFAULT_NOW`` (30 report days ended), the third build at ``DEFAULT_NOW``, once one more day has
ended.

With ``--backfill`` shorter than the span and a ``--rate-limit`` too low to stream it all
back, the days before the mirror are fetched through the Search API, as for a history longer
than the backfill (366 days at most): the shape of a 1,100-day site, at a size that runs in
minutes. (The fake clock stands still, so a search limit spent is waited for in earnest.)

With ``--check``, the final site is checked as a reader's tools see it
(``tests/support/site_check.py``): every page well formed, every internal link and fragment
landing, every feed Atom; then, when Debian's Chromium is installed, a sample of pages (a day of
each year, month and year indexes, topic pages, the search pages) opens with no console error,
and a search's result count is printed beside the day pages that hold the word.

    python bench/bench_site.py [--days 30] [--seed 1] [--out DIR] [--backfill N] [--rate-limit N]
                               [--check]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import resource
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import SecretStr
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from bot.compose import build_runtime
from bot.compose.site import site_builder
from bot.site import SiteBuilder, SiteOptions
from config.settings import GitHubSettings, RedisSettings, Settings, load_config
from digest.models import Lang, Window
from digest.windows import report_days
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.site import serve_directory
from tests.support.site_check import check_site, chromium, has_chromium, open_page
from tests.support.synthetic import DEFAULT_NOW, generate

REPO = "vllm-project/vllm"
PROJECT = 1100  # the days of a full history the figures are projected to


def _cpu() -> float:
    """CPU seconds of this process and its finished children (Pagefind runs as a child)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _size(root: Path) -> tuple[int, int]:
    """Bytes of the site, and of which its Pagefind index."""
    total = search = 0
    for path in root.rglob("*"):
        if path.is_file():
            size = path.stat().st_size
            total += size
            if path.relative_to(root).parts[0].startswith("pagefind"):
                search += size
    return total, search


async def _measure(label: str, builder: SiteBuilder, options: SiteOptions) -> float:
    cpu = _cpu()
    report = await builder.build(options)
    used = _cpu() - cpu
    render = report.seconds - report.digest_seconds - report.search_seconds
    print(
        f"{label:<18} {report.seconds:6.2f} s wall ({used:5.2f} s CPU): "
        f"{report.digest_seconds:5.2f} s digests, {render:5.2f} s rendering, "
        f"{report.search_seconds:4.2f} s search index "
        f"({report.search_indexed} of {report.search_parts} parts indexed); {report.pages} pages "
        f"({report.rendered} rendered, {report.reused} unchanged, {report.pending} pending)"
    )
    return report.seconds


async def run(
    days: int, seed: int, out: Path, backfill: int | None = None, limit: int | None = None
) -> None:
    data = generate(days=days + 2, now=DEFAULT_NOW, seed=seed, repo=REPO)
    clock = Clock(DEFAULT_NOW - timedelta(days=1) + timedelta(minutes=5))
    async with FakeGitHub(clock=clock) as github:
        github.add_repo(REPO, issues=data.issues, comments=data.comments)
        if limit is not None:
            github.limits[("core", True)] = limit
        settings = Settings(
            github=GitHubSettings(
                api_url=github.url,
                token=SecretStr("bench-token"),
                # the warm-up below syncs the whole span (unless told otherwise)
                backfill_days=backfill or min(days + 5, 366),
            ),
            db=str(out.parent / "mirror.sqlite3"),
            redis=RedisSettings(url=None),
        )
        config = load_config()
        conf = config.repo(REPO)
        async with build_runtime(settings, config, clock=clock) as runtime:
            dates, _ = report_days(clock(), conf.timezone, conf.day_start, days, None)
            warm = time.perf_counter()
            first = Window(
                DEFAULT_NOW - timedelta(days=days + 1), DEFAULT_NOW - timedelta(days=1), "UTC"
            )
            await runtime.sync.ensure(REPO, first)
            warmed = time.perf_counter() - warm
            print(
                f"warm mirror: {len(data.issues)} items, {len(data.comments)} comments, "
                f"{len(github.requests)} requests, {warmed:.2f} s "
                f"(report days {dates[0]} .. {dates[-1]})"
            )
            builder = site_builder(runtime)
            options = SiteOptions(out=out, repos=(REPO,), days=days, langs=(Lang.ZH, Lang.EN))
            full = await _measure(f"full {days}-day build", builder, options)
            total, search = _size(out)
            per_day = total / days
            print(
                f"output: {total / 1e6:.1f} MB ({per_day / 1e3:.0f} kB per day, of which "
                f"{search / days / 1e3:.0f} kB search index)"
            )
            unchanged = await _measure("unchanged rebuild", builder, options)
            clock.advance(timedelta(days=1))
            new_day = await _measure("one new day", builder, options)
            clock.advance(timedelta(days=1))
            daily = dataclasses.replace(options, days=30)  # what serve rebuilds after a post
            await _measure("new day, 30-day span", builder, daily)
            if days < PROJECT:  # the rebuilds reuse every unchanged day: measured, not projected
                scale = PROJECT / days
                print(
                    f"projection to {PROJECT} days (linear in days): full build "
                    f"~{full * scale / 60:.1f} min, ~{per_day * PROJECT / 1e9:.2f} GB"
                )
            print(f"rebuilds: unchanged {unchanged:.1f} s, one new day {new_day:.1f} s")


def check(out: Path) -> None:
    """Check the built site statically, then a sample of it in headless Chromium."""
    started = time.perf_counter()
    checked = check_site(out)
    print(
        f"check: {checked.pages} pages, {checked.feeds} feeds, {checked.links} internal links "
        f"followed, {len(checked.errors)} problems ({time.perf_counter() - started:.0f} s)"
    )
    for problem in checked.errors[:20]:
        print(f"  {problem}")
    if not has_chromium():
        print("browser check skipped: chromium and chromium-driver are not installed")
        return
    base = out / REPO
    days = sorted(p.name for p in base.iterdir() if p.name[:2] == "20" and "-" in p.name)
    years = sorted({d[:4] for d in days})
    sample = [f"{REPO}/{d}/{lang}/" for d in (days[0], days[len(days) // 2], days[-1])
              for lang in ("zh", "en")]  # fmt: skip
    sample += [f"{REPO}/{y}/en/" for y in years] + [f"{REPO}/{days[-1][:4]}/{days[-1][5:7]}/zh/"]
    sample += [f"{REPO}/topics/rocm/{lang}/" for lang in ("zh", "en")] + ["", f"{REPO}/"]
    word = "ROCm"
    holding = sum(
        1 for d in days if word.lower() in (base / d / "en" / "index.html").read_text().lower()
    )
    with serve_directory(out) as url, chromium() as driver:
        failing = {page: errors for page in sample if (errors := open_page(driver, url + page))}
        print(f"browser: {len(sample)} sample pages, {len(failing)} with console errors")
        for page, errors in failing.items():
            print(f"  {page}: {errors[0]['message'][:200]}")
        open_page(driver, f"{url}search/en/?q={word}")
        message = WebDriverWait(driver, 60).until(
            lambda d: (
                d.find_element(By.CSS_SELECTOR, ".pagefind-ui__message").text
                if d.find_elements(By.CSS_SELECTOR, ".pagefind-ui__message")
                else False
            )
        )
        print(f"search {word!r} (en): {message!r}; {holding} en day pages hold the word")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="keep the site here (default: a temp dir)")
    parser.add_argument("--backfill", type=int, help="the mirror's backfill days")
    parser.add_argument("--rate-limit", type=int, help="the fake's hourly limit of the token")
    parser.add_argument("--check", action="store_true", help="check the final site (above)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        out = args.out or Path(tmp) / "site"
        asyncio.run(run(args.days, args.seed, out, args.backfill, args.rate_limit))
        if args.check:
            check(out)


if __name__ == "__main__":
    main()
