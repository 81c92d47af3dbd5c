"""The reader's checks of the template report of the sample day (tests/data/vllm-2026-01-31.json):
per section, the Chinese share of the zh prose (titles, logins, links and code set aside; a
name counting one, and by letters, every Latin letter and digit alike) and the English
sentences it quotes; with ``--reference`` the same share of a published page (plain
text, its sections found by their emoji headings).

    python bench/bench_reader.py [--print zh|en] [--reference ../shared/reference/page.zh.txt]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from digest.i18n.share import chinese_share, english_quotes, prose
from digest.render.markdown import render_markdown
from tests.support.analysis_sample import build_digest, sample_analysis

# The published page's section headings, by the ids of our sections.
HEADINGS = {
    "summary": "📊",
    "topic:rocm": "🎯",
    "hot": "💬",
    "trends": "🔥",
    "key_changes": "🛠",
    "activity": "📈",
    "watch": "💡",
    "appendix": "📋",
}


def reference_sections(text: str) -> dict[str, str]:
    """The published page's text under each emoji heading, by our section ids."""
    marks = sorted(
        (text.find(f"\n{emoji}"), sid) for sid, emoji in HEADINGS.items() if f"\n{emoji}" in text
    )
    out: dict[str, str] = {}
    for index, (start, sid) in enumerate(marks):
        end = marks[index + 1][0] if index + 1 < len(marks) else len(text)
        body = text[start:end].split("\n", 2)[-1]
        out[sid] = re.sub(r"\[#\d+\]|#\d+", " ", body)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--print", choices=("zh", "en"), help="print that report's Markdown")
    parser.add_argument("--reference", type=Path, help="a published page, as plain text")
    args = parser.parse_args()
    analysis = sample_analysis()
    if args.print:
        print(render_markdown(build_digest(analysis, args.print)))
        return
    zh = build_digest(analysis, "zh")
    published = reference_sections(args.reference.read_text("utf-8")) if args.reference else {}
    print(
        "| section | ours: zh share | ours: by letters | ours: English quotes "
        "| published: zh share | published: by letters |"
    )
    print("|---|---|---|---|---|---|")
    for section in zh.sections:
        text = prose(section.blocks)
        theirs = published.get(section.id, "")
        shown = (
            f"{chinese_share(theirs):.0%} | {chinese_share(theirs, names=False):.0%}"
            if theirs.strip()
            else "- | -"
        )
        print(
            f"| {section.id} | {chinese_share(text):.0%} | {chinese_share(text, names=False):.0%}"
            f" | {len(english_quotes(text))} | {shown} |"
        )


if __name__ == "__main__":
    main()
