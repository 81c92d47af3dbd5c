"""Window rules: turn a window spec such as ``today`` or ``2026-03-10`` into exact bounds."""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from digest.errors import BadWindow
from digest.models import Window

MAX_DAYS = 31
_DATE = r"\d{4}-\d{2}-\d{2}"
_NDAYS = re.compile(r"^(\d{1,3})d$")
_RANGE = re.compile(rf"^({_DATE})\.\.({_DATE})$")
_SPEC = re.compile(rf"^(?:today|yesterday|week|\d{{1,3}}d|{_DATE}(?:\.\.{_DATE})?)$", re.I)
WINDOW_EXAMPLES = "today, yesterday, week, 3d, 2026-03-10 or 2026-03-01..2026-03-07"


def is_window_spec(text: str) -> bool:
    """Whether ``text`` has the shape of a window spec (its dates are checked by parsing)."""
    return bool(_SPEC.match(text.strip()))


def unknown_window(spec: str) -> BadWindow:
    """The one error for a word that is no window."""
    return BadWindow(f"unknown window {spec!r} (try {WINDOW_EXAMPLES})")


def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``, or ``BadWindow`` when it does not exist."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise BadWindow(
            f"unknown timezone {name!r} (use an IANA name such as Asia/Shanghai)"
        ) from exc


def parse_day_start(text: str) -> time:
    """``"HH:MM"`` as a time of day."""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", text.strip())
    if not match or int(match[1]) > 23 or int(match[2]) > 59:
        raise BadWindow(f"bad day start {text!r} (use HH:MM, e.g. 09:00)")
    return time(int(match[1]), int(match[2]))


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise BadWindow(f"bad date {text!r} (use YYYY-MM-DD)") from exc


def cutoff(day: date, tz: ZoneInfo, day_start: time) -> datetime:
    """The daily cut-off of ``day`` in ``tz``, in UTC."""
    return datetime.combine(day, day_start, tzinfo=tz).astimezone(UTC)


def report_day(moment: datetime, timezone: str, day_start: str) -> date:
    """The report date whose window (from its cut-off to the next) holds ``moment``."""
    tz, start = zone(timezone), parse_day_start(day_start)
    day = moment.astimezone(tz).date()
    while cutoff(day, tz, start) > moment:
        day -= timedelta(days=1)
    while cutoff(day + timedelta(days=1), tz, start) <= moment:
        day += timedelta(days=1)
    return day


def report_days(
    now: datetime, timezone: str, day_start: str, days: int, since: date | None
) -> tuple[list[date], date]:
    """The report dates whose window has ended by ``now``, oldest first (the last ``days``,
    or every one from ``since``), and the date still in progress."""
    current = report_day(now, timezone, day_start)
    last = current - timedelta(days=1)
    first = since if since is not None else last - timedelta(days=max(1, days) - 1)
    count = (last - first).days + 1
    return [first + timedelta(days=n) for n in range(max(0, count))], current


def parse_window(
    spec: str, *, now: datetime, timezone: str = "UTC", day_start: str = "00:00"
) -> Window:
    """Resolve ``spec`` (today, yesterday, week, Nd, DATE, DATE..DATE) against ``now``."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    tz = zone(timezone)
    start_of_day = parse_day_start(day_start)
    text = spec.strip().lower()
    now_floor = now.astimezone(UTC).replace(second=0, microsecond=0)

    def ending_now(days: int, label: str) -> Window:
        if not 1 <= days <= MAX_DAYS:
            raise BadWindow(f"a window is 1 to {MAX_DAYS} days long, not {days}")
        return Window(now_floor - timedelta(days=days), now_floor, timezone, label, ends_now=True)

    if text in ("", "today"):
        return ending_now(1, "today")
    if text == "yesterday":
        end = now_floor - timedelta(days=1)
        return Window(end - timedelta(days=1), end, timezone, "yesterday")
    if text == "week":
        return ending_now(7, "week")
    if match := _NDAYS.match(text):
        return ending_now(int(match[1]), f"{int(match[1])}d")
    if match := _RANGE.match(text):
        first, last = _parse_date(match[1]), _parse_date(match[2])
        if last < first:
            raise BadWindow(f"the range {spec!r} ends before it starts")
        if (last - first).days >= MAX_DAYS:  # counted in local days: DST may add an hour
            raise BadWindow(f"a window is at most {MAX_DAYS} days long")
        start = cutoff(first, tz, start_of_day)
        end = cutoff(last + timedelta(days=1), tz, start_of_day)
        label = f"{first.isoformat()}..{last.isoformat()}"
    elif re.fullmatch(_DATE, text):
        day = _parse_date(text)
        start = cutoff(day, tz, start_of_day)
        end = start + timedelta(days=1)
        label = day.isoformat()
    else:
        raise unknown_window(spec)
    if start >= now:
        raise BadWindow(f"the window {spec!r} has not started yet")
    if start >= now_floor:
        raise BadWindow(f"the window {spec!r} started less than a minute ago; try again shortly")
    return Window(
        start, min(end, now_floor) if end > now else end, timezone, label, ends_now=end > now
    )


def format_offset(moment: datetime) -> str:
    """``UTC+8``, ``UTC+5:30``, ``UTC-4`` or ``UTC``."""
    offset = moment.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{mins:02d}" if mins else "")


def format_moment(moment: datetime, timezone: str) -> str:
    """``2026-03-10 11:21 (UTC+8)``."""
    local = moment.astimezone(zone(timezone))
    return f"{local:%Y-%m-%d %H:%M} ({format_offset(local)})"


def format_window(window: Window) -> str:
    """``2026-03-10 11:21 (UTC+8) ~ 2026-03-11 11:21 (UTC+8)``."""
    zone_name = window.timezone
    return f"{format_moment(window.start, zone_name)} ~ {format_moment(window.end, zone_name)}"


def title_date(window: Window) -> str:
    """The date shown in the report title: one local date, or a range for longer windows."""
    if re.fullmatch(_DATE, window.label):
        return window.label
    if match := _RANGE.match(window.label):
        return f"{match[1]} ~ {match[2]}"
    tz = zone(window.timezone)
    first = window.start.astimezone(tz).date()
    last = window.end.astimezone(tz).date()
    if window.days <= 1:
        return (last if window.ends_now else first).isoformat()
    return f"{first.isoformat()} ~ {last.isoformat()}"


def spec_of(window: Window) -> str:
    """The window spec closest to ``window`` (the inverse of ``parse_window``): today, week,
    3d, yesterday, DATE or DATE..DATE."""
    if window.ends_now:
        days = max(1, math.ceil(window.days - 1e-9))
        return "today" if days == 1 else "week" if days == 7 else f"{days}d"
    if window.label == "yesterday":
        return "yesterday"
    tz = zone(window.timezone)
    first = window.start.astimezone(tz).date()
    last = (window.end - timedelta(microseconds=1)).astimezone(tz).date()
    return first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"
