"""Dates, times of day and weekdays as `pytest_llmeval.facts.extract` reads them.

``6 May 1825`` = ``May 6, 1825`` = ``1825-05-06``; ``6 p.m.`` = ``18:00`` = ``18:0``; the ends of a range of
times (``10 am to 8 pm``, ``10:0-20:0``) are times of their own. Each is a `Fact`.

>>> [f.value for f in clock_time_facts("Open 10 am to 8 pm")] == [f.value for f in clock_time_facts("Open 10:0-20:0")]
True
"""

from __future__ import annotations

import re
from dataclasses import replace

from .fact import Fact, fact_end, is_hedged, keeps_text

__all__ = ["MONTHS", "clock_time_facts", "date_facts", "weekday_facts"]


_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


#: Dates in digits with slashes or dots: year first ("2021/05/06"), or day and month in either order with the
#: year last ("25/06/2021", "06/25/2021", "25.06.2021"); see `_numeric_date()` for which are read.
_NUMERIC_DATE = re.compile(
    r"(?<![\d/.])(?:(?P<y>\d{4})/(?P<ym>\d{1,2})/(?P<yd>\d{1,2})"
    r"|(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<year>\d{4}))(?![\d/]|\.\d)"
)


MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"


_DATE = re.compile(
    r"(?i)\b(?:(?P<day1>\d{1,2})(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?"
    + _MONTH.replace("month", "month1")
    + r"(?:,?[ \t]+(?P<year1>\d{4}))?"
    r"|" + _MONTH.replace("month", "month2") + r"[ \t]+(?P<day2>\d{1,2})(?:st|nd|rd|th)?\b(?:,?[ \t]+(?P<year2>\d{4}))?"
    r"|" + _MONTH.replace("month", "month3") + r",?[ \t]+(?P<year3>\d{4}))\b"
)


_WEEKDAYS = {
    name: index
    for index, names in enumerate(
        [
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}


#: A day of the week, capitalised: in full ("Monday", "Mondays"), or shortened ("Mon", "Tues.").
_WEEKDAY = re.compile(
    r"\b(?:(?P<full>" + "|".join(n.capitalize() for n in _WEEKDAYS if n.endswith("day")) + r")s?"
    r"|(?P<short>"
    + "|".join(
        sorted((n.capitalize() for n in _WEEKDAYS if len(n) <= 5 and not n.endswith("day")), key=len, reverse=True)
    )
    + r")(?P<dot>\.)?)(?!\w)"
)


#: What follows a shortened weekday that makes it one: another weekday ("Mon-Fri", "Mon, Wed"), a date or time ("Sat
#: 10am").
_WEEKDAY_AFTER = re.compile(
    r"[ \t]*(?:[-–—,/&][ \t]*|[ \t](?:to|and|through|or)[ \t]+)(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)|,?[ \t]+\d"
)


#: What joins a shortened weekday to the one before it ("Mon-Fri", "Sat, Sun").
_WEEKDAY_JOIN = re.compile(r"[ \t]*(?:[-–—,/&][ \t]*|[ \t](?:to|and|through|or)[ \t]+)\Z")


#: What every date holds (a month's name, digits joined by a hyphen, slash or dot): texts without it are not scanned.
_MAYBE_DATE = re.compile(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\d[-/]\d|\d\.\d{1,2}\.\d")


#: What every time of day holds (a colon between digits, a.m. or p.m., noon or midnight).
_MAYBE_TIME = re.compile(r"(?i)\d:\d|\d[ \t]?[ap]\.?[ \t]?m|noon|midnight|midday")


_MERIDIEM = r"(?P<ampm>(?i:[ap]\.[ \t]?m\.|[ap]\.?m)(?!\w))"


_CLOCK = re.compile(
    r"(?<![\d:.])(?:(?P<word>(?<!\w)(?:12(?::00)?[ \t])?(?i:noon|midday|midnight)(?!\w))"
    r"|(?P<h>\d{1,2})(?:[:.](?P<m>\d{2})|:(?P<m1>\d))?(?::(?P<s>\d{2}))?[ \t]?"
    + _MERIDIEM
    + r"|(?P<h2>\d{1,2}):(?:(?P<m2>\d{2})|(?P<m3>\d))(?::(?P<s2>\d{2}))?(?![\d:]))"
)


#: An hour alone before the other end of a range of times: the "9" of "9-5pm", "9 to 11 a.m.".
_BARE_HOUR = re.compile(
    r"(?<![\w:.,/\-−–—])(?P<h>\d{1,2})(?:[ \t]*[-–—][ \t]*|[ \t]+(?:to|until|till|through|and)[ \t]+)\Z"
)


#: What joins two times of a range: "10:0-20:0", "10 am to 8 pm".
_TIME_JOIN = re.compile(r"(?:[ \t]*[-–—][ \t]*|[ \t]+(?:to|until|till|through|and)[ \t]+)\Z")


@keeps_text
def clock_time_facts(text: str) -> tuple[Fact, ...]:
    """Times of day and clock durations: ``6 p.m.`` = ``18:00`` = ``18:0``; ``noon`` = ``12 pm``; ``2:06:15`` is 7,575
    seconds.

    Each end of a range is a time of its own; an end without a.m. or p.m. takes the other's
    (``9-5pm`` is 9 a.m. to 5 p.m.). A minute of one digit after an hour of one (``9:5``) is read only in a range
    (``9:0-17:0``): alone it is more often a score or a ratio.

    >>> [f.value / 3600 for f in clock_time_facts("Open 10 am to 8 pm, or 9-11:30 pm, or 9:0-17:0 at noon")]
    [10.0, 20.0, 21.0, 23.5, 9.0, 17.0, 12.0]
    """
    if not _MAYBE_TIME.search(text):
        return ()
    ends: list[
        tuple[Fact, bool, bool]
    ] = []  # each time, whether it says a.m. or p.m. (or noon), whether alone it is no time
    for match in _CLOCK.finditer(text):
        loose = False
        if match.group("word") is not None:
            hour, minute, second = (0 if "midnight" in match.group("word").lower() else 12), 0, 0
        elif match.group("h") is not None:
            hour, minute = int(match.group("h")), int(match.group("m") or match.group("m1") or 0)
            second = int(match.group("s") or 0)
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if match.group("ampm").lower().startswith("p") else 0)
        else:
            hour, minute, second = (
                int(match.group("h2")),
                int(match.group("m2") or match.group("m3")),
                int(match.group("s2") or 0),
            )
            loose = match.group("m3") is not None and len(match.group("h2")) == 1
        if minute > 59 or second > 59:
            continue
        fact = Fact(
            "time",
            match.group(0),
            float(hour * 3600 + minute * 60 + second),
            "clock",
            1.0,
            match.start(),
            approx=is_hedged(text, match.start(), match.end()),
        )
        ends.append((fact, match.group("h2") is None, loose))
    out: list[Fact] = []
    for index, (fact, meridiem, loose) in enumerate(ends):
        following = ends[index + 1] if index + 1 < len(ends) else None
        joined = following is not None and _TIME_JOIN.match(text, fact_end(fact), following[0].start) is not None
        if loose and not (joined or (out and _TIME_JOIN.match(text, fact_end(out[-1]), fact.start))):
            continue
        if following is not None and joined and not meridiem and following[1] and fact.value < 13 * 3600:
            fact = replace(fact, value=_before(fact.value, following[0].value))
        elif meridiem:
            bare = _BARE_HOUR.search(text, max(0, fact.start - 16, fact_end(out[-1]) if out else 0), fact.start)
            if bare is not None and 1 <= int(bare.group("h")) <= 12:
                value = _before(int(bare.group("h")) * 3600.0, fact.value)
                out.append(
                    Fact(
                        "time",
                        bare.group("h"),
                        value,
                        "clock",
                        1.0,
                        bare.start(),
                        approx=is_hedged(text, bare.start(), bare.end("h")),
                    )
                )
        out.append(fact)
    return tuple(out)


def _before(value: float, other: float) -> float:
    """A time of day without a.m. or p.m. (``value``, read on a 12-hour clock) as the start of a range ending at
    ``other``: in the same half of the day, or the other one where that would end the range before it begins."""
    value = value % (12 * 3600) + (12 * 3600 if other >= 12 * 3600 else 0)
    return value if value <= other else (value + 12 * 3600) % (24 * 3600)


@keeps_text
def date_facts(text: str) -> tuple[Fact, ...]:
    """Dates: ``6 May 1825`` = ``May 6, 1825`` = ``1825-05-06`` = ``06/05/1825`` only where the order is clear
    (see `_numeric_date()`); a month alone (``May 1825``) is a date without a day.

    >>> [f.value for f in date_facts("on 25/12/2020, 12/25/2020, 2020/12/25 or 25 December 2020, not 05/06/2021")]
    [(2020, 12, 25), (2020, 12, 25), (2020, 12, 25), (2020, 12, 25)]
    """
    if not _MAYBE_DATE.search(text):
        return ()
    found: list[Fact] = []
    for match in _ISO_DATE.finditer(text):
        iso = tuple(int(g) for g in match.groups())
        if 1 <= iso[1] <= 12 and 1 <= iso[2] <= 31:
            found.append(Fact("date", match.group(0), iso, start=match.start()))
    for match in _NUMERIC_DATE.finditer(text):
        value = _numeric_date(match)
        if value is not None:
            found.append(Fact("date", match.group(0), value, start=match.start()))
    for match in _DATE.finditer(text):
        groups = match.groupdict()
        month_name = groups["month1"] or groups["month2"] or groups["month3"]
        day = groups["day1"] or groups["day2"]
        year = groups["year1"] or groups["year2"] or groups["year3"]
        if month_name == "may" and not day:
            continue  # "may 2020" in lower case is too often the verb
        day_value = int(day) if day else None
        if day_value is not None and not 1 <= day_value <= 31:
            continue
        month = MONTHS[month_name.lower().rstrip(".")]
        found.append(Fact("date", match.group(0), (int(year) if year else None, month, day_value), start=match.start()))
        # The other end of a range of days in one month: "3 to 5 June" and "June 3-5" state 3 June too.
        other = (
            _RANGE_BEFORE.search(text, 0, match.start())
            if groups["day1"]
            else _RANGE_AFTER.match(text, match.end())
            if groups["day2"]
            else None
        )
        if other is not None and 1 <= int(other.group(1)) <= 31:
            found.append(
                Fact(
                    "date",
                    other.group(1),
                    (int(year) if year else None, month, int(other.group(1))),
                    start=other.start(1),
                )
            )
    return tuple(found)


#: A first day before a range's closing date ("*3 to* 5 June") and a last day after its opening one ("June 3*-5*").
_RANGE_BEFORE = re.compile(
    r"(?<![\d.,:])(\d{1,2})(?:st|nd|rd|th)?\s*(?:-|–|—|to|and|until|till|through)\s*\Z", re.IGNORECASE
)
_RANGE_AFTER = re.compile(
    r"\s*(?:-|–|—|to|and|until|till|through)\s*(\d{1,2})(?:st|nd|rd|th)?(?![\d:.,]\d|\d)", re.IGNORECASE
)


def _numeric_date(match: re.Match[str]) -> tuple[int, int, int] | None:
    """``(year, month, day)`` of a date in digits, where the order of day and month is clear: year first
    (``2021/05/06``), a day above 12 (``25/06/2021``, ``06/25/2021``), day and month alike (``05/05/2021``), or
    dots, day first (``06.05.2021``). ``05/06/2021`` is May 6 in one country and 5 June in another: not read."""
    if match.group("y"):
        year, month, day = int(match.group("y")), int(match.group("ym")), int(match.group("yd"))
    else:
        first, second, year = int(match.group("a")), int(match.group("b")), int(match.group("year"))
        if match.group("sep") == "." and second <= 12 or first > 12 >= second or first == second:
            day, month = first, second
        elif second > 12 >= first:
            day, month = second, first
        else:
            return None
    return (year, month, day) if 1 <= month <= 12 and 1 <= day <= 31 else None


@keeps_text
def weekday_facts(text: str) -> tuple[Fact, ...]:
    """Days of the week (kind ``weekday``, 0 for Monday to 6 for Sunday): ``Monday``, ``Mondays``, ``Mon.``, and a
    shortened name before another ("Mon-Fri", "Sat, Sun"), a time or a date ("Sat 10am"); not "Sun" or "Sat" alone.

    >>> [(f.text, f.value) for f in weekday_facts("Open Mon-Fri and on Sundays; the Sun reported it")]
    [('Mon', 0), ('Fri', 4), ('Sundays', 6)]
    """
    found: list[Fact] = []
    for match in _WEEKDAY.finditer(text):
        if match.group("short") and not match.group("dot") and not _WEEKDAY_AFTER.match(text, match.end()):
            previous = found[-1] if found else None
            if previous is None or not _WEEKDAY_JOIN.match(text, fact_end(previous), match.start()):
                continue
        name = (match.group("full") or match.group("short")).lower()
        found.append(Fact("weekday", match.group(0), _WEEKDAYS[name], start=match.start()))
    return tuple(found)
