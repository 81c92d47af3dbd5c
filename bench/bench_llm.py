"""Benchmark of the LLM writer on a one-day, vLLM-sized window, against the fake model server.

Prints the tokens each section's request takes (the writer's offline estimate and the fake
server's count, a quarter token a UTF-8 byte) against the default budget, and the wall time of a
whole digest against the per-section latency of the server.

    python bench/bench_llm.py [--lang zh] [--latency 0.5 --latency 1.0] [--concurrency 4]

With ``--base-url`` and ``--model`` it writes whole digests of the real sample day
(tests/data/vllm-2026-01-31.json) against that server instead, and prints per section whether
the model wrote it or why it fell back, its prompt and completion tokens and its seconds, and
the reader's checks of each section (its zh Chinese share and quoted English sentences):

    python bench/bench_llm.py --base-url http://127.0.0.1:8000/v1 --model smol \
        [--lang en] [--section-tokens 1500 --digest-tokens 14000 --max-output-tokens 300]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import openai

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from config.settings import LLMSettings
from digest.analysis.types import Analysis
from digest.i18n.share import chinese_share, english_quotes, prose
from digest.llm.budget import estimate_messages
from digest.writers.base import Written
from digest.writers.llm import LLMWriter
from digest.writers.template import TemplateWriter
from tests.fakes.openai_server import FakeOpenAI
from tests.support.analysis_sample import sample_analysis
from tests.support.llm_samples import one_day_analysis


def _writer(base_url: str, settings: LLMSettings, concurrency: int) -> LLMWriter:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0, timeout=30)
    return LLMWriter(
        client,
        "bench-model",
        fallback=TemplateWriter(),
        concurrency=concurrency,
        section_tokens=settings.section_tokens,
        digest_tokens=settings.digest_tokens,
        max_output_tokens=settings.max_output_tokens,
        timeout=30.0,
    )


async def tokens(analysis: Analysis, lang: str, settings: LLMSettings) -> None:
    async with FakeOpenAI() as fake:
        written: Written = await _writer(fake.base_url, settings, 8).write(analysis, lang)
    print(
        f"\n== tokens, lang={lang} (section budget {settings.section_tokens}, "
        f"digest budget {settings.digest_tokens}, max output {settings.max_output_tokens})"
    )
    print(f"{'section':<14}{'cards':>6}{'estimated':>11}{'server':>9}{'max answer':>12}")
    estimated = 0
    for request in fake.requests:
        estimate = estimate_messages(request.messages)
        estimated += estimate
        print(
            f"{request.section:<14}{len(request.cards):>6}{estimate:>11}"
            f"{request.prompt_tokens:>9}{request.max_tokens or 0:>12}"
        )
    reserved = estimated + sum(r.max_tokens or 0 for r in fake.requests)
    completion = written.usage.completion_tokens
    print(
        f"requests {len(fake.requests)}; prompt tokens: estimated {estimated}, "
        f"server-counted {written.usage.prompt_tokens}; completion tokens {completion}"
    )
    print(
        f"prompt + reserved answers (estimated) {reserved} of {settings.digest_tokens}; "
        f"used (server usage) {written.usage.total}"
    )
    print(
        f"sections by the model: {sum(s.writer != 'template' for s in written.sections)}"
        f" of {len(written.sections)}; notes: {list(written.notes)}"
    )


async def wall(analysis: Analysis, latency: float, concurrency: int, runs: int) -> None:
    settings = LLMSettings()
    times = []
    async with FakeOpenAI(latency=latency) as fake:
        writer = _writer(fake.base_url, settings, concurrency)
        for _ in range(runs):
            started = time.monotonic()
            await writer.write(analysis, "en")
            times.append(time.monotonic() - started)
        sections = len(fake.requests) // runs
    print(
        f"latency {latency:.2f} s/section, {sections} sections, concurrency {concurrency}: "
        f"wall {statistics.median(times):.2f} s (median of {runs}), "
        f"{statistics.median(times) / latency:.2f}x one section"
    )


class _Sections(logging.Handler):
    """Collects the writer's per-section events."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.rows: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg in ("llm.section_written", "llm.section_fallback"):
            self.rows.append(dict(record.__dict__))


def reader_checks(written: Written, lang: str) -> None:
    """What a reader of the report checks, per section: who wrote it, and in zh its Chinese
    share (titles, logins, links and code set aside; the published pages are 40-59 %) and the
    English sentences it quotes (there should be none)."""
    print("\n| section | writer | zh share | English quotes |")
    print("|---|---|---|---|")
    for section in written.sections:
        text = prose(section.blocks)
        share = f"{chinese_share(text):.0%}" if lang == "zh" else "-"
        quotes = len(english_quotes(text)) if lang == "zh" else "-"
        print(f"| {section.id} | {section.writer} | {share} | {quotes} |")


async def against(args: argparse.Namespace) -> None:
    """Whole digests of the sample day against a real server, section by section."""
    analysis = sample_analysis()
    client = openai.AsyncOpenAI(
        base_url=args.base_url, api_key=args.api_key, max_retries=1, timeout=args.timeout
    )
    writer = LLMWriter(
        client,
        args.model,
        fallback=TemplateWriter(),
        concurrency=args.concurrency[0] if args.concurrency else 2,
        section_tokens=args.section_tokens,
        digest_tokens=args.digest_tokens,
        max_output_tokens=args.max_output_tokens,
        timeout=args.timeout,
    )
    sections = _Sections()
    logger = logging.getLogger("digest.writers.llm")
    logger.addHandler(sections)
    logger.setLevel(logging.INFO)
    print(
        f"sample day {analysis.data.window.label}: {len(analysis.data.items)} items, "
        f"{len(analysis.data.comments)} comments; model {args.model} at {args.base_url}"
    )
    for lang in args.lang or ["en", "zh"]:
        sections.rows.clear()
        started = time.monotonic()
        written = await writer.write(analysis, lang)
        wall = time.monotonic() - started
        endpoint = writer._chat.endpoint
        print(
            f"\n== lang={lang}: format {endpoint.mode.value}, refused requests so far "
            f"{endpoint.refused}; wall {wall:.1f} s; tokens {written.usage.prompt_tokens} prompt "
            f"+ {written.usage.completion_tokens} completion"
        )
        print("| section | written by | prompt | completion | seconds |")
        print("|---|---|---|---|---|")
        for row in sorted(sections.rows, key=lambda r: str(r["section"])):
            who = "model" if row["msg"] == "llm.section_written" else f"fallback ({row['reason']})"
            print(
                f"| {row['section']} | {who} | {row['prompt_tokens']} | "
                f"{row['completion_tokens']} | {row['seconds']:.1f} |"
            )
        reader_checks(written, lang)
    await client.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lang", action="append", choices=("zh", "en"))
    parser.add_argument("--latency", action="append", type=float)
    parser.add_argument("--concurrency", action="append", type=int)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base-url", help="an OpenAI-compatible server to run against")
    parser.add_argument("--model", help="the model to ask (with --base-url)")
    parser.add_argument("--api-key", default="not-needed")
    parser.add_argument("--section-tokens", type=int, default=LLMSettings().section_tokens)
    parser.add_argument("--digest-tokens", type=int, default=LLMSettings().digest_tokens)
    parser.add_argument("--max-output-tokens", type=int, default=LLMSettings().max_output_tokens)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    if args.base_url:
        if not args.model:
            parser.error("--base-url needs --model")
        await against(args)
        return
    started = time.monotonic()
    analysis = one_day_analysis()
    counts = analysis.counts
    print(
        f"one-day window: {len(analysis.data.items)} items, {len(analysis.data.comments)} "
        f"comments; counts {counts.as_dict()} (analysed in {time.monotonic() - started:.2f} s)"
    )
    settings = LLMSettings()
    for lang in args.lang or ["en", "zh"]:
        await tokens(analysis, lang, settings)
    print("\n== wall time against per-section latency")
    for concurrency in args.concurrency or [8, 4]:
        for latency in args.latency or [0.25, 1.0]:
            await wall(analysis, latency, concurrency, args.runs)


if __name__ == "__main__":
    asyncio.run(main())
