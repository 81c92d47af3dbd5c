"""Charts of a repository's activity: SVG for the website, PNG for chat, from one description.

The website's SVG is written directly (a few rectangles, lines and labels: about a millisecond
a chart, where drawing it with matplotlib took a quarter of a second, and thousands of pages
carry one); chat's PNG is drawn by matplotlib's Agg backend, headless. Both are byte-identical
for the same data. Charts describe counts only (never GitHub text) and every label is
escaped, so a chart cannot carry untrusted markup.

Chinese labels need a CJK font; when none is installed the labels are English, so a chart
never shows boxes for missing glyphs.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache, lru_cache
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from digest.i18n import cjk_script, t
from digest.i18n.site import site_t
from digest.models import Comment, Counts, Item, Lang, Window
from digest.windows import zone

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COUNT_KEYS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
_ACTIVITY_KEYS = ("opened_issues", "opened_prs", "merged_prs", "comments")
_COLORS = ("#d1495b", "#2e86ab", "#66a182", "#8e44ad", "#edae49")
# Simplified Chinese first; any CJK family draws the labels' characters.
_CJK_NAMES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Noto Sans CJK",
    "Source Han Sans",
    "WenQuanYi",
    "Droid Sans Fallback",
    "Noto Serif CJK",
)
_WIDTH, _HEIGHT = 800, 320  # the SVG's user units (CSS scales it to the page's width)
_PLOT = (52, 34, 792, 250)  # left, top, right, bottom of the plot area
_FONT = "DejaVu Sans, Noto Sans CJK SC, Source Han Sans SC, sans-serif"


@dataclass(frozen=True, slots=True)
class Chart:
    """What a chart shows: labelled series of counts over labelled slots, and its words."""

    kind: str  # activity | days | topic
    lang: Lang  # the language of the labels (en when zh was asked for and no CJK font exists)
    title: str
    x_labels: tuple[str, ...]
    series: tuple[tuple[str, tuple[int, ...]], ...]  # (label, one count per slot)
    summary: str  # the text alternative: what the chart says, in one sentence

    @property
    def total(self) -> int:
        return sum(sum(values) for _, values in self.series)


@dataclass(frozen=True, slots=True)
class ChartImage:
    """A chart drawn for chat: the PNG, its text alternative, a title and a file name."""

    png: bytes
    alt: str
    title: str
    filename: str


def chat_image(chart: Chart, name: str) -> ChartImage:
    """``chart`` as a PNG for chat, described by its title and summary."""
    alt = f"{chart.title}{t('common.colon', chart.lang)}{chart.summary}"
    return ChartImage(render_png(chart), alt, chart.title, name)


@cache
def cjk_font() -> str | None:
    """The family name of an installed CJK font matplotlib can use, or ``None``."""
    from matplotlib import font_manager

    names = sorted({font.name for font in font_manager.fontManager.ttflist})
    return next((n for p in _CJK_NAMES for n in names if n.startswith(p)), None)


def label_lang(lang: Lang) -> Lang:
    """The language charts can be labelled in: one in CJK script only when a CJK font is
    installed, else English."""
    return Lang.EN if cjk_script(lang) and cjk_font() is None else lang


def activity_chart(
    window: Window, items: Sequence[Item], comments: Sequence[Comment], lang: Lang
) -> Chart:
    """A day's activity: opened issues, opened PRs, merges and comments per hour of the window."""
    lang = label_lang(lang)
    tz = zone(window.timezone)
    hours = max(1, int((window.end - window.start).total_seconds() // 3600))
    slots = [window.start + timedelta(hours=h) for h in range(hours)]
    x_labels = tuple(f"{s.astimezone(tz):%H}" for s in slots)

    def per_hour(moments: Sequence[object]) -> tuple[int, ...]:
        counts = [0] * hours
        for moment in moments:
            if window.contains(moment):  # type: ignore[arg-type]
                index = int((moment - window.start).total_seconds() // 3600)  # type: ignore[operator]
                counts[min(index, hours - 1)] += 1
        return tuple(counts)

    values = {
        "opened_issues": per_hour([i.created_at for i in items if not i.is_pr]),
        "opened_prs": per_hour([i.created_at for i in items if i.is_pr]),
        "merged_prs": per_hour([i.merged_at for i in items if i.is_pr]),
        "comments": per_hour([c.created_at for c in comments]),
    }
    series = tuple((site_t(f"chart.{key}", lang), values[key]) for key in _ACTIVITY_KEYS)
    totals = {key: sum(v) for key, v in values.items()}
    busiest = max(range(hours), key=lambda h: sum(v[h] for v in values.values()))
    summary = site_t(
        "chart.activity_summary",
        lang,
        issues=totals["opened_issues"],
        prs=totals["opened_prs"],
        merged=totals["merged_prs"],
        comments=totals["comments"],
        hour=x_labels[busiest],
    )
    title = site_t("chart.activity_title", lang, tz=window.timezone)
    return Chart("activity", lang, title, x_labels, series, summary)


def days_chart(days: Sequence[tuple[date, Counts | None]], lang: Lang) -> Chart:
    """A repository's recent days: the five counts per day, oldest first (``None``: pending)."""
    lang = label_lang(lang)
    ordered = sorted(days, key=lambda pair: pair[0])
    x_labels = tuple(f"{day:%m-%d}" for day, _ in ordered)
    series = tuple(
        (
            site_t(f"chart.{key}", lang),
            tuple(getattr(counts, key) if counts else 0 for _, counts in ordered),
        )
        for key in COUNT_KEYS
    )
    built = [counts for _, counts in ordered if counts is not None]
    summary = site_t(
        "chart.days_summary",
        lang,
        days=len(built),
        issues=sum(c.new_issues for c in built),
        prs=sum(c.new_prs for c in built),
        merged=sum(c.merged_prs for c in built),
    )
    title = site_t("chart.days_title", lang, n=len(ordered))
    return Chart("days", lang, title, x_labels, series, summary)


def topic_chart(topic_title: str, days: Sequence[tuple[date, int | None]], lang: Lang) -> Chart:
    """A focus topic's items per day, oldest first (``None``: the day is pending)."""
    lang = label_lang(lang)
    ordered = sorted(days, key=lambda pair: pair[0])
    x_labels = tuple(f"{day:%m-%d}" for day, _ in ordered)
    values = tuple(n or 0 for _, n in ordered)
    title = site_t("chart.topic_title", lang, topic=topic_title)
    summary = site_t("chart.topic_summary", lang, n=sum(values), days=len(values))
    return Chart("topic", lang, title, x_labels, ((site_t("chart.items", lang), values),), summary)


def topic_months_chart(
    topic_title: str, months: Sequence[tuple[tuple[int, int], int]], lang: Lang
) -> Chart:
    """A focus topic's items per month ((year, month), count), oldest first: its whole
    history when the days are too many to show one by one."""
    lang = label_lang(lang)
    ordered = sorted(months)
    x_labels = tuple(f"{year}-{month:02d}" for (year, month), _ in ordered)
    values = tuple(n for _, n in ordered)
    title = site_t("chart.topic_title_months", lang, topic=topic_title)
    summary = site_t("chart.topic_summary_months", lang, n=sum(values), months=len(values))
    return Chart("topic", lang, title, x_labels, ((site_t("chart.items", lang), values),), summary)


def _figure(chart: Chart) -> Figure:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(8, 3.2), dpi=100)
    fig.subplots_adjust(left=0.06, right=0.99, top=0.9, bottom=0.22)
    ax = fig.subplots()
    slots = range(len(chart.x_labels))
    if chart.kind == "days":
        for (label, values), color in zip(chart.series, _COLORS, strict=False):
            ax.plot(
                slots, values, marker="o", markersize=3, linewidth=1.5, label=label, color=color
            )
    else:
        bottom = [0] * len(chart.x_labels)
        for (label, values), color in zip(chart.series, _COLORS, strict=False):
            ax.bar(slots, values, bottom=bottom, label=label, color=color, width=0.8)
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    step = max(1, len(chart.x_labels) // 12)
    ax.set_xticks(list(slots)[::step], chart.x_labels[::step])
    ax.set_title(chart.title, fontsize=11)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", linewidth=0.5, alpha=0.5)
    ax.spines[["top", "right"]].set_visible(False)
    if len(chart.series) > 1:
        fig.legend(fontsize=8, frameon=False, ncols=len(chart.series), loc="lower center")
    return fig


@cache
def _setup() -> None:
    """matplotlib's settings for every chart, set once (copying them per chart costs more
    than drawing): text stays text in SVG, a fixed hash salt gives stable ids, and the CJK
    font, when there is one, draws the glyphs DejaVu Sans lacks."""
    import matplotlib

    family = ["DejaVu Sans"]
    if (cjk := cjk_font()) is not None:
        family.append(cjk)
    matplotlib.rcParams.update(
        {
            "font.family": family,
            "svg.hashsalt": "vllm-report",
            "svg.fonttype": "none",
            "axes.unicode_minus": False,
        }
    )


@lru_cache(maxsize=512)
def render_svg(chart: Chart, prefix: str = "") -> str:
    """The chart as an SVG element (no XML prolog), ready to inline in HTML; the same chart
    is drawn once (the repository's and topics' charts repeat across pages).

    ``prefix`` goes before every element id (and every reference to one), so several charts
    can share a page.
    """
    left, top, right, bottom = _PLOT
    slots = max(1, len(chart.x_labels))
    stacked = chart.kind != "days"
    if stacked:
        peak = max(
            (sum(v[i] for _, v in chart.series) for i in range(len(chart.x_labels))), default=0
        )
    else:
        peak = max((max(v, default=0) for _, v in chart.series), default=0)
    step, ceiling = _ticks(peak)
    width = (right - left) / slots

    def x_of(slot: float) -> float:
        return left + (slot + 0.5) * width

    def y_of(value: float) -> float:
        return bottom - (bottom - top - 6) * value / ceiling  # headroom for the markers

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family={quoteattr(_FONT)} font-size="11">',
        f'<defs><clipPath id="{prefix}plot"><rect x="{left}" y="{top}" '
        f'width="{right - left}" height="{bottom - top}"/></clipPath></defs>',
        f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="#ffffff"/>',
        f'<text x="{_WIDTH / 2:g}" y="20" text-anchor="middle" font-size="14">'
        f"{escape(chart.title)}</text>",
    ]
    for value in range(0, ceiling + 1, step):
        y = y_of(value)
        out.append(
            f'<line x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#b0b0b0" '
            f'stroke-width="0.5" stroke-opacity="0.5"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value}</text>'
        )
    out.append(f'<g clip-path="url(#{prefix}plot)">')
    if stacked:
        base = [0] * len(chart.x_labels)
        for (_, values), color in zip(chart.series, _COLORS, strict=False):
            for i, value in enumerate(values):
                if value:
                    y0, y1 = y_of(base[i]), y_of(base[i] + value)
                    out.append(
                        f'<rect x="{x_of(i) - 0.4 * width:.1f}" y="{y1:.1f}" '
                        f'width="{0.8 * width:.1f}" height="{y0 - y1:.1f}" fill="{color}"/>'
                    )
                base[i] += value
    else:
        for (_, values), color in zip(chart.series, _COLORS, strict=False):
            points = " ".join(f"{x_of(i):.1f},{y_of(v):.1f}" for i, v in enumerate(values))
            out.append(
                f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="1.5"/>'
            )
            out.extend(
                f'<circle cx="{x_of(i):.1f}" cy="{y_of(v):.1f}" r="2.5" fill="{color}"/>'
                for i, v in enumerate(values)
            )
    out.append("</g>")
    out.append(
        f'<line x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}" stroke="#000000" '
        f'stroke-width="0.8"/><line x1="{left}" x2="{left}" y1="{top}" y2="{bottom}" '
        f'stroke="#000000" stroke-width="0.8"/>'
    )
    every = max(1, len(chart.x_labels) // 12)
    for i in range(0, len(chart.x_labels), every):
        out.append(
            f'<text x="{x_of(i):.1f}" y="{bottom + 16}" text-anchor="middle">'
            f"{escape(chart.x_labels[i])}</text>"
        )
    if len(chart.series) > 1:
        out.append(_legend(chart))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _ticks(peak: int) -> tuple[int, int]:
    """An integer step of 1, 2 or 5 times a power of ten giving at most six ticks, and the
    axis's top (a multiple of the step, at least the peak, never zero)."""
    peak = max(1, peak)
    step = 1
    while math.ceil(peak / step) > 6:
        magnitude = 10 ** int(math.log10(step))
        step = next(k * magnitude for k in (1, 2, 5, 10) if k * magnitude > step)
    return step, step * math.ceil(peak / step)


def _legend(chart: Chart) -> str:
    """The series' names under the plot, centred on one line."""
    entries = [(label, color) for (label, _), color in zip(chart.series, _COLORS, strict=False)]
    sizes = [16 + 7 * len(label) + 18 for label, _ in entries]  # swatch, text, gap
    x = (_WIDTH - sum(sizes)) / 2
    y = _HEIGHT - 18
    parts = []
    for (label, color), size in zip(entries, sizes, strict=True):
        parts.append(
            f'<rect x="{x:.1f}" y="{y - 9}" width="10" height="10" fill="{color}"/>'
            f'<text x="{x + 14:.1f}" y="{y}">{escape(label)}</text>'
        )
        x += size
    return "".join(parts)


def render_png(chart: Chart) -> bytes:
    """The chart as a PNG image (for chat)."""
    _setup()
    out = io.BytesIO()
    _figure(chart).savefig(out, format="png", dpi=120, metadata={"Software": None})
    return out.getvalue()
