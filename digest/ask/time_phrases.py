"""Time phrases of a question ("this week", "since Monday", "最近三天") as exact windows.

Calendar phrases (this week, since Monday, in March, over the weekend) use midnight in the
repository's time zone; a date (2026-03-05, March 5, 3月5日) is the digest's day from its
daily cut-off; rolling phrases (last 3 days, past week) end now, like the digest windows.
Without a phrase the window is the last 7 days; no window is longer than 31 days.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from digest.i18n import t
from digest.i18n.site import MONTHS_EN
from digest.models import Lang, Window
from digest.windows import MAX_DAYS, cutoff, parse_day_start, zone

DEFAULT_DAYS = 7

_NUMBERS_EN = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "few": 3,
    "couple": 2,
    "couple of": 2,
}
_DIGITS_ZH = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_WEEKDAYS = {
    "monday": 0,
    "mon": 0,
    "tuesday": 1,
    "tue": 1,
    "tues": 1,
    "wednesday": 2,
    "wed": 2,
    "thursday": 3,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sat": 5,
    "sunday": 6,
    "sun": 6,
}
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sep": 9,
    "sept": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}

_NUM_EN = r"(\d{1,4}|" + "|".join(sorted(_NUMBERS_EN, key=len, reverse=True)) + r")"
_NUM_ZH = r"(\d{1,4}|[零一二两三四五六七八九十]{1,4})"
_UNIT_EN = r"(hours?|hrs?|h|days?|d|weeks?|wks?|w|months?)"
_WEEKDAY = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE = r"\d{4}-\d{2}-\d{2}"
_MDAY = r"(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4})\b)?"  # "5th", "5, 2026"
_MONTH_NOT_MAY = "|".join(sorted((m for m in _MONTHS if m != "may"), key=len, reverse=True))
_MONTH_ZH = r"(1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"


@dataclass(frozen=True, slots=True)
class When:
    """The window a question asks about, how to say it, and what was adjusted."""

    window: Window
    en: str  # "in the last 7 days", "since Monday"
    zh: str  # "最近 7 天", "自周一以来"
    phrase: str = ""  # the words of the question that gave it ("" for the default)
    notes: tuple[str, ...] = ()


def number_zh(text: str) -> int | None:
    """``三`` → 3, ``十五`` → 15, ``二十一`` → 21, ``12`` → 12."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        head, _, tail = text.partition("十")
        tens = _DIGITS_ZH.get(head, 0) if head else 1
        ones = _DIGITS_ZH.get(tail, 0) if tail else 0
        if (head and head not in _DIGITS_ZH) or (tail and tail not in _DIGITS_ZH):
            return None
        return tens * 10 + ones
    if len(text) == 1 and text in _DIGITS_ZH:
        return _DIGITS_ZH[text]
    return None


class _Clock:
    """Builds windows against one moment in one time zone."""

    def __init__(self, now: datetime, timezone: str, day_start: str, lang: Lang = Lang.EN) -> None:
        self.lang = lang
        self.now = now.astimezone(UTC)
        self.floor = self.now.replace(second=0, microsecond=0)
        self.timezone = timezone
        self.day_start = day_start
        self.tz = zone(timezone)
        self.today = self.now.astimezone(self.tz).date()

    def wall(self, moment: datetime) -> datetime:
        """``moment`` as a naive local wall-clock time."""
        return moment.astimezone(self.tz).replace(tzinfo=None)

    def midnight(self, day: date) -> datetime:
        return datetime.combine(day, time(0), tzinfo=self.tz).astimezone(UTC)

    def rolling(self, hours: int, label: str, en: str, zh: str, phrase: str) -> When:
        notes: tuple[str, ...] = ()
        if hours > MAX_DAYS * 24:
            hours = MAX_DAYS * 24
            label, en, zh = f"{MAX_DAYS}d", f"in the last {MAX_DAYS} days", f"最近 {MAX_DAYS} 天"
            notes = (t("note.longest_rolling", self.lang, n=MAX_DAYS),)
        start = self.floor - timedelta(hours=hours)
        return When(
            Window(start, self.floor, self.timezone, label, ends_now=True), en, zh, phrase, notes
        )

    def days(self, count: int, phrase: str) -> When:
        if count == 1:
            return self.rolling(24, "today", "in the last 24 hours", "最近 24 小时", phrase)
        return self.rolling(
            count * 24, f"{count}d", f"in the last {count} days", f"最近 {count} 天", phrase
        )

    def span(
        self, start: datetime, end: datetime, label: str, en: str, zh: str, phrase: str
    ) -> When | None:
        """``[start, end)`` cut at now and at the longest window; ``None`` when in the future."""
        notes: tuple[str, ...] = ()
        end = min(end, self.floor)
        if start >= end:
            if start >= self.now:
                return None
            start = end - timedelta(minutes=1)
        if self.wall(end) - self.wall(start) > timedelta(days=MAX_DAYS):  # DST adds no day
            start = end - timedelta(days=MAX_DAYS)
            notes = (t("note.longest_span", self.lang, n=MAX_DAYS),)
        ends_now = end >= self.floor
        return When(
            Window(start, end, self.timezone, label, ends_now=ends_now), en, zh, phrase, notes
        )

    def since(self, start: datetime, label: str, en: str, zh: str, phrase: str) -> When | None:
        return self.span(start, self.floor, label, en, zh, phrase)

    def monday(self, weeks_back: int = 0) -> date:
        return self.today - timedelta(days=self.today.weekday() + 7 * weeks_back)

    def last_weekday(self, weekday: int, *, strictly_before: bool) -> date:
        back = (self.today.weekday() - weekday) % 7
        if back == 0 and strictly_before:
            back = 7
        return self.today - timedelta(days=back)

    def month(self, month: int, year: int | None, phrase: str) -> When | None:
        if year is None:
            year = self.today.year if month <= self.today.month else self.today.year - 1
        first = date(year, month, 1)
        following = date(year + (month == 12), month % 12 + 1, 1)
        name = MONTHS_EN[month - 1]
        return self.span(
            self.midnight(first),
            self.midnight(following),
            f"{year:04d}-{month:02d}",
            f"in {name} {year}",
            f"{year} 年 {month} 月",
            phrase,
        )

    def dates(self, first: date, last: date, phrase: str) -> When | None:
        """From the cut-off of ``first`` to the cut-off after ``last``, like digest windows."""
        if last < first:
            first, last = last, first
        start_of_day = parse_day_start(self.day_start)
        start = cutoff(first, self.tz, start_of_day)
        end = cutoff(last + timedelta(days=1), self.tz, start_of_day)
        if first == last:
            label, en, zh = first.isoformat(), f"on {first.isoformat()}", first.isoformat()
        else:
            label = f"{first.isoformat()}..{last.isoformat()}"
            en = f"from {first.isoformat()} to {last.isoformat()}"
            zh = f"{first.isoformat()} 至 {last.isoformat()}"
        return self.span(start, end, label, en, zh, phrase)


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _dates(c: _Clock, first: str, last: str, phrase: str) -> When | None:
    start, end = _day(first), _day(last)
    if start is None or end is None:
        return None
    return c.dates(start, end, phrase)


def _number_en(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else _NUMBERS_EN.get(text, 1)


def _unit_hours(unit: str) -> int:
    unit = unit.lower()
    if unit.startswith("h"):
        return 1
    if unit.startswith("w"):
        return 7 * 24
    if unit.startswith("m") or unit in ("个月", "月"):
        return 30 * 24
    if unit in ("周", "星期", "礼拜", "个星期", "个礼拜"):
        return 7 * 24
    if unit in ("小时", "个小时"):
        return 1
    return 24


def _rolling(c: _Clock, count: int, unit: str, phrase: str) -> When | None:
    """The ``count`` units ending now; ``None`` for none at all ("the last 0 days")."""
    if count < 1:
        return None
    per = _unit_hours(unit)
    hours = count * per
    if per == 1:
        return c.rolling(
            hours, f"{count}h", f"in the last {count} hours", f"最近 {count} 小时", phrase
        )
    if hours % 24 == 0:
        return c.days(hours // 24, phrase)
    return c.rolling(hours, f"{hours}h", f"in the last {hours} hours", f"最近 {hours} 小时", phrase)


_Rule = tuple[re.Pattern[str], Callable[[_Clock, re.Match[str]], When | None]]


def _this_week(c: _Clock, m: re.Match[str]) -> When | None:
    return c.since(c.midnight(c.monday()), "this-week", "this week", "本周", m[0])


def _last_week(c: _Clock, m: re.Match[str]) -> When | None:
    start = c.midnight(c.monday(1))
    return c.span(start, c.midnight(c.monday()), "last-week", "last week", "上周", m[0])


def _this_month(c: _Clock, m: re.Match[str]) -> When | None:
    return c.since(c.midnight(c.today.replace(day=1)), "this-month", "this month", "本月", m[0])


def _last_month(c: _Clock, m: re.Match[str]) -> When | None:
    first = c.today.replace(day=1)
    previous = (first - timedelta(days=1)).replace(day=1)
    return c.span(
        c.midnight(previous), c.midnight(first), "last-month", "last month", "上个月", m[0]
    )


def _today(c: _Clock, m: re.Match[str]) -> When | None:
    return c.rolling(24, "today", "today", "今天", m[0])


def _yesterday(c: _Clock, m: re.Match[str]) -> When | None:
    end = c.floor - timedelta(days=1)
    return c.span(end - timedelta(days=1), end, "yesterday", "yesterday", "昨天", m[0])


def _since_yesterday(c: _Clock, m: re.Match[str]) -> When | None:
    start = c.midnight(c.today - timedelta(days=1))
    return c.since(start, "since-yesterday", "since yesterday", "自昨天以来", m[0])


def _since_weekday(c: _Clock, weekday: int, phrase: str) -> When | None:
    day = c.last_weekday(weekday, strictly_before=False)
    name = _WEEKDAY_NAMES[weekday]
    zh = "周日" if weekday == 6 else f"周{'一二三四五六'[weekday]}"
    return c.since(c.midnight(day), f"since-{name.lower()}", f"since {name}", f"自{zh}以来", phrase)


def _on_weekday(c: _Clock, weekday: int, phrase: str, day: date | None = None) -> When | None:
    """The calendar day (midnight to midnight) of the last ``weekday``, or of ``day``."""
    day = day or c.last_weekday(weekday, strictly_before=True)
    name = _WEEKDAY_NAMES[weekday]
    zh = "周日" if weekday == 6 else f"周{'一二三四五六'[weekday]}"
    return c.span(
        c.midnight(day),
        c.midnight(day + timedelta(days=1)),
        day.isoformat(),
        f"on {name} ({day.isoformat()})",
        f"{zh}（{day.isoformat()}）",
        phrase,
    )


def _since_day(c: _Clock, day: date | None, phrase: str) -> When | None:
    if day is None:
        return None
    iso = day.isoformat()
    return c.since(c.midnight(day), f"since-{iso}", f"since {iso}", f"自 {iso} 以来", phrase)


def _since_date(c: _Clock, m: re.Match[str]) -> When | None:
    return _since_day(c, _day(m[1]), m[0])


def _month_day(c: _Clock, month: int | None, day_text: str, year_text: str | None) -> date | None:
    """The date of "March 5" / "3月5日": this year's, or last year's when it is still ahead."""
    day = number_zh(day_text)
    if month is None or day is None:
        return None
    year = int(year_text) if year_text else c.today.year
    try:
        found = date(year, month, day)
        if not year_text and found > c.today:
            found = date(year - 1, month, day)
    except ValueError:
        return None
    return found


def _on_day(c: _Clock, day: date | None, phrase: str) -> When | None:
    return None if day is None else c.dates(day, day, phrase)


def _weekend(c: _Clock, m: re.Match[str]) -> When | None:
    saturday = c.last_weekday(5, strictly_before=False)
    sunday = saturday + timedelta(days=1)
    return c.span(
        c.midnight(saturday),
        c.midnight(saturday + timedelta(days=2)),
        "weekend",
        f"over the weekend ({saturday.isoformat()}..{sunday.isoformat()})",
        f"周末（{saturday.isoformat()} 至 {sunday.isoformat()}）",
        m[0],
    )


def _day_before_yesterday(c: _Clock, m: re.Match[str]) -> When | None:
    end = c.floor - timedelta(days=2)
    return c.span(
        end - timedelta(days=1),
        end,
        "day-before-yesterday",
        "the day before yesterday",
        "前天",
        m[0],
    )


def _last_week_day(c: _Clock, m: re.Match[str]) -> When | None:
    weekday = _WEEKDAYS_ZH[m[1]]
    return _on_weekday(c, weekday, m[0], c.monday(1) + timedelta(days=weekday))


def _since_month(c: _Clock, m: re.Match[str]) -> When | None:
    month = _MONTHS[m[1].lower()]
    year = c.today.year if month <= c.today.month else c.today.year - 1
    name = MONTHS_EN[month - 1]
    return c.since(
        c.midnight(date(year, month, 1)),
        f"since-{year}-{month:02d}",
        f"since {name}",
        f"自 {month} 月以来",
        m[0],
    )


def _month_zh(c: _Clock, m: re.Match[str]) -> When | None:
    month = number_zh(m[2])
    if month is None or not 1 <= month <= 12:
        return None
    year = int(m[1]) if m[1] else None
    return c.month(month, year, m[0])


_RULES: tuple[_Rule, ...] = (
    (
        re.compile(
            rf"(?:between\s+)?({_DATE})\s*(?:\.\.|to|until|and|-|~|至|到)\s*({_DATE})", re.I
        ),
        lambda c, m: _dates(c, m[1], m[2], m[0]),
    ),
    (re.compile(rf"\bsince\s+({_DATE})\b", re.I), _since_date),
    (re.compile(rf"(?:自|从)\s*({_DATE})\s*(?:以来|开始|起|至今)?"), _since_date),
    (re.compile(rf"\b({_DATE})\b"), lambda c, m: _dates(c, m[1], m[1], m[0])),
    (
        re.compile(
            rf"\b(?:(?:in|over|during|for|within)\s+)?(?:the\s+)?(?:last|past|previous|"
            rf"recent)\s+{_NUM_EN}\s+{_UNIT_EN}\b",
            re.I,
        ),
        lambda c, m: _rolling(c, _number_en(m[1]), m[2], m[0]),
    ),
    (
        re.compile(
            r"\b(?:(?:in|over|during|for|within)\s+)?(?:the\s+)?(?:last|past|previous)\s+"
            r"(\d{1,4})\s*(h|d|w)\b",
            re.I,
        ),
        lambda c, m: _rolling(c, int(m[1]), m[2], m[0]),
    ),
    (re.compile(r"(?<![\w.])(\d{1,3})d\b"), lambda c, m: _rolling(c, int(m[1]), "d", m[0])),
    (
        re.compile(
            rf"(?:最近|过去|近|前|这|这些)\s*{_NUM_ZH}\s*(个小时|小时|个月|个星期|个礼拜|天|日|周|星期|礼拜)"
        ),
        lambda c, m: _rolling(c, number_zh(m[1]) or 0, m[2], m[0]),
    ),
    (re.compile(r"\b(?:the\s+)?(?:past|last)\s+(?:24|twenty[- ]four)\s+hours\b", re.I), _today),
    (re.compile(r"\b(?:the\s+)?(?:past|last)\s+day\b", re.I), _today),
    (
        re.compile(
            r"\b(?:the\s+)?past\s+(?:week|7\s+days)\b|\bthis\s+past\s+week\b|"
            r"\b(?:in|over|during|within|for)\s+the\s+last\s+week\b|最近一周|过去一周|近一周|这一周来",
            re.I,
        ),
        lambda c, m: c.days(7, m[0]),
    ),
    (
        re.compile(r"\b(?:the\s+)?past\s+(?:fortnight|two\s+weeks)\b|\blast\s+fortnight\b", re.I),
        lambda c, m: c.days(14, m[0]),
    ),
    (
        re.compile(
            r"\b(?:the\s+)?past\s+month\b|\b(?:in|over|during|within|for)\s+the\s+last\s+month\b"
            r"|最近一个月|过去一个月|近一个月",
            re.I,
        ),
        lambda c, m: c.days(30, m[0]),
    ),
    (re.compile(r"\bsince\s+yesterday\b|(?:自|从)昨天(?:以来|开始|起)", re.I), _since_yesterday),
    (
        re.compile(rf"\bsince\s+(?:last\s+)?({_WEEKDAY})\b", re.I),
        lambda c, m: _since_weekday(c, _WEEKDAYS[m[1].lower()], m[0]),
    ),
    (
        re.compile(
            r"(?:自|从)?(?:本|这)?(?:周|星期|礼拜)([一二三四五六日天])\s*(?:以来|开始|起|至今)"
        ),
        lambda c, m: _since_weekday(c, _WEEKDAYS_ZH[m[1]], m[0]),
    ),
    (re.compile(r"\b(?:over\s+|on\s+)?(?:the\s+|this\s+|last\s+)?weekend\b|周末", re.I), _weekend),
    (re.compile(r"前天"), _day_before_yesterday),
    (re.compile(r"上个?(?:周|星期|礼拜)([一二三四五六日天])"), _last_week_day),
    (
        re.compile(r"\bthis\s+week\b|本周|这周|这一周|本星期|这星期|这个星期|本礼拜|这礼拜", re.I),
        _this_week,
    ),
    (
        re.compile(r"\blast\s+week\b|\bprevious\s+week\b|上周|上星期|上个星期|上一周|上礼拜", re.I),
        _last_week,
    ),
    (re.compile(r"\bthis\s+month\b|本月|这个月", re.I), _this_month),
    (re.compile(r"\blast\s+month\b|\bprevious\s+month\b|上个月|上月", re.I), _last_month),
    (
        re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])"),
        lambda c, m: _on_weekday(c, _WEEKDAYS_ZH[m[1]], m[0]),
    ),
    (re.compile(r"\btoday\b|\btonight\b|\bthis\s+morning\b|今天|今日|今儿", re.I), _today),
    (re.compile(r"\byesterday\b|昨天|昨日", re.I), _yesterday),
    (
        re.compile(rf"\b(?:on\s+|last\s+)({_WEEKDAY})\b", re.I),
        lambda c, m: _on_weekday(c, _WEEKDAYS[m[1].lower()], m[0]),
    ),
    (
        re.compile(rf"\bsince\s+({_MONTH})\.?\s+{_MDAY}", re.I),
        lambda c, m: _since_day(c, _month_day(c, _MONTHS[m[1].lower()], m[2], m[3]), m[0]),
    ),
    (
        # "may 2" alone reads as a verb and a number: May needs "on"
        re.compile(rf"\b(?:on\s+({_MONTH})|({_MONTH_NOT_MAY}))\.?\s+{_MDAY}", re.I),
        lambda c, m: _on_day(c, _month_day(c, _MONTHS[(m[1] or m[2]).lower()], m[3], m[4]), m[0]),
    ),
    (
        re.compile(
            rf"\b(?:on\s+)?(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_NOT_MAY})\b",
            re.I,
        ),
        lambda c, m: _on_day(c, _month_day(c, _MONTHS[m[2].lower()], m[1], None), m[0]),
    ),
    (
        re.compile(
            rf"(?:(\d{{4}})\s*年\s*)?{_MONTH_ZH}\s*月\s*(\d{{1,2}}|[一二三]?十[一二三四五六七八九]?|"
            r"[一二三四五六七八九])\s*[日号](\s*(?:以来|开始|起|至今))?"
        ),
        lambda c, m: (_since_day if m[4] else _on_day)(
            c, _month_day(c, number_zh(m[2]), m[3], m[1]), m[0]
        ),
    ),
    (re.compile(rf"\bsince\s+({_MONTH})\b", re.I), _since_month),
    (
        re.compile(rf"\b(?:in|during|for|over)\s+({_MONTH})(?:\s+(\d{{4}}))?\b", re.I),
        lambda c, m: c.month(_MONTHS[m[1].lower()], int(m[2]) if m[2] else None, m[0]),
    ),
    (
        re.compile(rf"\b({_MONTH})\s+(\d{{4}})\b", re.I),
        lambda c, m: c.month(_MONTHS[m[1].lower()], int(m[2]), m[0]),
    ),
    (
        re.compile(rf"(?:(\d{{4}})\s*年\s*)?(?<![个上本这]){_MONTH_ZH}\s*月份?"),
        _month_zh,
    ),
)


def resolve_when(
    text: str,
    *,
    now: datetime,
    timezone: str = "UTC",
    day_start: str = "00:00",
    lang: Lang = Lang.EN,
) -> When:
    """The window ``text`` asks about (the first time phrase it holds), or the last 7 days.

    A phrase that names the future or an impossible date is ignored, with a note in ``lang``.
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    clock = _Clock(now, timezone, day_start, lang)
    for pattern, build in _RULES:
        match = pattern.search(text)
        if match is None:
            continue
        try:
            when = build(clock, match)
        except (OverflowError, ValueError):  # a date at the calendar's edge ("9999-12-31")
            when = None
        if when is not None:
            return when
        fallback = clock.days(DEFAULT_DAYS, "")
        phrase = match[0].strip()
        note = t("note.not_past", clock.lang, phrase=phrase, n=DEFAULT_DAYS)
        return When(fallback.window, fallback.en, fallback.zh, match[0], (note,))
    return clock.days(DEFAULT_DAYS, "")
