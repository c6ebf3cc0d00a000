"""Cell values shown as the sheet formats them: the common Excel number-format codes (pure).

openpyxl and xlrd give a cell's value and its format code, not the text Excel
shows. The one Python port of a full formatter (ssf, of SheetJS's SSF) was
last released in 2020 and its forks are one-person copies, so this module does
the codes spreadsheets use: ``General``; digits ``0 # ?``, the decimal point,
thousands separators and scaling commas; ``%``; scientific ``0.00E+00``;
fractions ``# ?/?``; up to four sections ``positive;negative;zero;text`` and
``[>=100]`` conditions; literals (``"text"``, ``\\x``, ``_x`` as a space, ``*x``
dropped); colours dropped; currency ``[$€-407]`` as its symbol; dates and times
``yyyy yy mmmm mmm mm m dddd ddd dd d hh h mm ss .00 AM/PM [h] [mm] [ss]``;
``@`` for text.

Separators and names come from a `NumberLocale`: a format code is stored with
``.`` and ``,`` whatever the reader's country, and Excel shows it in the
viewer's locale. `workbook_locale` takes German when the workbook's codes say
so (a ``-407``/``de-`` locale tag, a dotted ``dd.mm.yyyy`` date, an amount
followed by ``€``) and English otherwise; built-in short dates (``mm-dd-yy``,
format 14, which Excel shows as the system's short date, and 22, ``m/d/yy h:mm``)
follow the locale too. A date code's own locale tag (``[$-407]``) names its months.

Signs and sections as Excel and LibreOffice show them (checked against
LibreOffice's "as shown" export): a one-section code puts a minus before a
negative number only when a non-zero digit shows (``-0.004`` under ``0.00`` is
``0.00``), beside any minus the code writes itself (``-0.00`` shows ``--20.42``,
as Excel's ``TEXT`` does); a negative or zero section writes its own sign, and an
empty one shows nothing (``0;-0;;@`` hides zeros); conditional sections are tried
before an unconditioned one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache


@dataclass(frozen=True)
class NumberLocale:
    name: str
    decimal: str
    group: str
    short_date: str
    months: tuple[str, ...]
    days: tuple[str, ...]  # Monday first
    true_false: tuple[str, str]


ENGLISH = NumberLocale(
    "en",
    ".",
    ",",
    "yyyy-mm-dd",
    tuple("January February March April May June July August September October November "
          "December".split()),
    tuple("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()),
    ("TRUE", "FALSE"),
)  # fmt: skip
GERMAN = NumberLocale(
    "de",
    ",",
    ".",
    "dd.mm.yyyy",
    tuple("Januar Februar März April Mai Juni Juli August September Oktober November "
          "Dezember".split()),
    tuple("Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag".split()),
    ("WAHR", "FALSCH"),
)  # fmt: skip
_GERMAN_TAG = re.compile(r"\[\$[^\]]*-(?:407|c07|807|1007|1407|de(?:-[a-z]{2})?)\]", re.I)
_ENGLISH_TAG = re.compile(r"\[\$[^\]]*-(?:409|809|c09|1009|en(?:-[a-z]{2})?)\]", re.I)
_DOTTED_DATE = re.compile(r"d{1,2}\.m{1,2}\.y{2,4}", re.I)
_AMOUNT_EURO = re.compile(r"[0#](?:\s|\\ |_.|\")*(?:\[\$)?€")
_BUILTIN_SHORT_DATES = {"mm-dd-yy", "m/d/yy", "m/d/yyyy", "d/m/yyyy"}
_BUILTIN_DATE_TIME = "m/d/yy h:mm"
_DATE_TOKEN = re.compile(
    r"\[h+\]|\[m+\]|\[s+\]|yyyy|yy|y|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|"
    r"am/pm|a/p|\.0+",
    re.I,
)
_CONDITION = re.compile(r"\[(<=|>=|<>|<|>|=)(-?\d+(?:\.\d+)?)\]")
_BRACKET = re.compile(r"\[[^\]]*\]")
_EPOCH = datetime(1899, 12, 30)
_PLACEHOLDERS = re.compile(
    r"[0#?][0#?,.]*(?:[eE][+-][0#]+|\s+[0#?]+/[0-9#?]+|/[0-9#?]+)?|\.[0#?]+"
)


def workbook_locale(codes: list[str]) -> NumberLocale:
    """German or English separators, from the format codes a workbook uses."""
    german = english = 0
    for code in codes:
        german += bool(_GERMAN_TAG.search(code) or _DOTTED_DATE.search(code))
        german += bool(_AMOUNT_EURO.search(code))
        english += bool(_ENGLISH_TAG.search(code))
    return GERMAN if german > english else ENGLISH


# ----------------------------------------------------------------------------- sections


@lru_cache(maxsize=512)
def _split_sections(code: str) -> tuple[str, ...]:
    sections: list[str] = []
    current: list[str] = []
    quoted = bracket = escape = False
    for ch in code:
        if escape:
            escape = False
        elif ch == "\\":
            escape = True
        elif ch == '"':
            quoted = not quoted
        elif not quoted and ch == "[":
            bracket = True
        elif not quoted and ch == "]":
            bracket = False
        elif ch == ";" and not quoted and not bracket:
            sections.append("".join(current))
            current = []
            continue
        current.append(ch)
    sections.append("".join(current))
    return tuple(sections)


def _holds(condition: re.Match[str], value: float) -> bool:
    op, limit = condition.group(1), float(condition.group(2))
    return {
        "<": value < limit, "<=": value <= limit, ">": value > limit, ">=": value >= limit,
        "=": value == limit, "<>": value != limit,
    }[op]  # fmt: skip


def _negative_only(condition: re.Match[str]) -> bool:
    """A condition no number >= 0 meets ([<0], [<=-25]): its section writes the sign itself."""
    op, limit = condition.group(1), float(condition.group(2))
    return (op == "<" and limit <= 0) or (op in ("<=", "=") and limit < 0)


def _pick_section(sections: tuple[str, ...], value: float) -> tuple[str, bool]:
    """(section, whether a minus sign goes before it) for a number.

    Without conditions: positive;negative;zero, a negative or zero section writing its
    own sign (an empty one shows nothing: ``0;-0;;@`` hides zeros); one section
    takes every number and a negative one gets a minus. With conditions, the
    sections that have one are tried in order, then the first that has none; the
    minus is added unless the section's condition only holds for negative numbers.
    """
    numeric = sections[:3]
    conditions = [_CONDITION.search(s) for s in numeric]
    if any(conditions):
        for section, condition in zip(numeric, conditions, strict=True):
            if condition is not None and _holds(condition, value):
                return section, value < 0 and not _negative_only(condition)
        rest = [s for s, c in zip(numeric, conditions, strict=True) if c is None]
        return (rest[0], value < 0) if rest else (numeric[-1], False)
    if value < 0 and len(sections) >= 2:
        return sections[1], False
    if value == 0 and len(sections) >= 3:
        return sections[2], False
    return sections[0], value < 0


# ----------------------------------------------------------------------------- literals


@lru_cache(maxsize=1024)
def _literal_parts(section: str) -> tuple[tuple[bool, str], ...]:
    """The section as (is_literal, text) pieces: quotes, escapes, _x and *x resolved."""
    parts: list[tuple[bool, str]] = []
    i = 0
    while i < len(section):
        ch = section[i]
        if ch == '"':
            end = section.find('"', i + 1)
            end = len(section) if end < 0 else end
            parts.append((True, section[i + 1 : end]))
            i = end + 1
        elif ch == "\\" and i + 1 < len(section):
            parts.append((True, section[i + 1]))
            i += 2
        elif ch == "_" and i + 1 < len(section):
            parts.append((True, " "))
            i += 2
        elif ch == "*" and i + 1 < len(section):
            i += 2
        elif ch == "[":
            end = section.find("]", i)
            end = len(section) if end < 0 else end
            parts.append((True, _bracket_text(section[i : end + 1])))
            i = end + 1
        else:
            parts.append((False, ch))
            i += 1
    return tuple(parts)


def _bracket_text(token: str) -> str:
    if token.startswith("[$"):
        return token[2:-1].split("-", 1)[0]  # [$€-407] -> €, [$-407] -> ""
    if re.fullmatch(r"\[(?:h+|m+|s+)\]", token, re.I):
        return token  # elapsed time: the date formatter reads it
    return ""  # colours, conditions


# ----------------------------------------------------------------------------- numbers


def _general(value: float, loc: NumberLocale) -> str:
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15):
        return str(int(value))
    text = f"{value:.15g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        text = f"{mantissa}E{int(exp):+03d}"
    return text.replace(".", loc.decimal)


def _group(digits: str, sep: str) -> str:
    head = len(digits) % 3 or 3
    return sep.join([digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)])


def _fixed(value: float, pattern: str, loc: NumberLocale) -> str:
    """``#,##0.00`` and friends for abs(value); the pattern holds only 0#?.,"""
    integer, _, fraction = pattern.partition(".")
    grouped = "," in integer.strip(",")
    scale = len(integer) - len(integer.rstrip(","))
    value /= 1000**scale
    text = str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-len(fraction)), ROUND_HALF_UP))
    whole, _, decimals = text.partition(".")
    keep = len(fraction.rstrip("#"))
    decimals = decimals[:keep] + decimals[keep:].rstrip("0")
    min_digits = integer.count("0")
    whole = whole.lstrip("0").rjust(min_digits, "0") if whole != "0" or min_digits else ""
    if grouped:
        whole = _group(whole, loc.group)
    return whole + (loc.decimal + decimals if decimals or fraction.strip("#") else "")


def _scientific(value: float, pattern: str, loc: NumberLocale) -> str:
    mantissa_pattern = re.split(r"[eE][+-]", pattern, maxsplit=1)[0]
    decimals = len(mantissa_pattern.partition(".")[2])
    exponent = 0 if value == 0 else math.floor(math.log10(abs(value)))
    mantissa = value / 10**exponent
    sign = "+" if exponent >= 0 else "-"
    exp_digits = len(pattern) - len(pattern.rstrip("0#"))
    body = f"{mantissa:.{decimals}f}".replace(".", loc.decimal)
    return f"{body}E{sign}{abs(exponent):0{max(exp_digits, 1)}d}"


def _fraction(value: float, pattern: str) -> str:
    whole_part, _, frac = pattern.rpartition(" ")
    denominator = frac.partition("/")[2]
    whole = int(value) if whole_part.strip() else 0
    rest = Fraction(value - whole)
    if denominator.isdigit():
        rest = Fraction(round(rest * int(denominator)), int(denominator))
    else:
        rest = rest.limit_denominator(10 ** len(denominator) - 1)
    if rest == 1:
        whole, rest = whole + 1, Fraction(0)
    parts = [str(whole)] if whole or rest == 0 else []
    if rest:
        parts.append(f"{rest.numerator}/{rest.denominator}")
    return " ".join(parts)


@lru_cache(maxsize=1024)
def _number_plan(section: str) -> tuple[str, int, str, int, int] | None:
    """(kind, percent signs, placeholder pattern, its start and end) of a number
    section; kind is "general", "text" (no placeholders), "sci", "fraction" or "fixed"."""
    code = "".join(text for literal, text in _literal_parts(section) if not literal)
    if code.strip().lower() == "general" or not section.strip() or "@" in code:
        return ("general", 0, "", 0, 0)  # "@" is the text format: a number stays as typed
    placeholders = _PLACEHOLDERS.search(code)
    if placeholders is None:
        return ("text", 0, "", 0, 0)
    pattern = placeholders.group(0).replace("?", "#").rstrip()
    kind = "sci" if re.search(r"[eE][+-]", pattern) else "fraction" if "/" in pattern else "fixed"
    start, end = placeholders.span()
    return (kind, code.count("%"), pattern, start, end)


def _format_number(value: float, section: str, loc: NumberLocale) -> tuple[str, bool]:
    """The section's text for ``abs(value)``, and whether it shows a non-zero digit
    (Excel puts no minus before a negative number that shows as zero)."""
    plan = _number_plan(section)
    parts = _literal_parts(section)
    kind, percents, pattern, start, end = plan or ("text", 0, "", 0, 0)
    if kind == "general":
        return _general(abs(value), loc), value != 0
    if kind == "text":
        return "".join(text for _, text in parts), True
    value *= 100**percents
    if kind == "sci":
        number = _scientific(abs(value), pattern, loc)
    elif kind == "fraction":
        number = _fraction(abs(value), pattern)
    else:
        number = _fixed(abs(value), pattern.replace(" ", ""), loc)
    out, pos = [], 0
    for literal, text in parts:
        if literal:
            out.append(text)
        else:
            if pos == start:
                out.append(number)
            if not (start <= pos < end):
                out.append(text)
            pos += 1
    shows = any(ch in "123456789" for ch in number.partition("E")[0])
    return "".join(out).strip(), shows


# ----------------------------------------------------------------------------- dates


def _as_datetime(value: object) -> datetime | timedelta | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, time):
        return datetime(1899, 12, 30, value.hour, value.minute, value.second, value.microsecond)
    if isinstance(value, timedelta):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 2958466:
        return _EPOCH + timedelta(days=float(value))
    return None


@lru_cache(maxsize=1024)
def _is_date_code(code: str) -> bool:
    stripped = "".join(t for lit, t in _literal_parts(code) if not lit or t.startswith("["))
    return bool(re.search(r"[ydhs]|\[[hms]+\]|(?<![0#?])m", stripped, re.I)) and not re.search(
        r"[0#?]", re.sub(r"\.0+|\[[^\]]*\]", "", stripped)
    )


@lru_cache(maxsize=1024)
def _date_plan(section: str) -> tuple[tuple[tuple[bool, str], ...], frozenset[int], bool]:
    """A date section's tokens, which m tokens are minutes, whether it is 12-hour."""
    tokens = _date_tokens(section)
    twelve = any(not lit and t.lower() in ("am/pm", "a/p") for lit, t in tokens)
    return tuple(tokens), frozenset(_minute_positions(tokens)), twelve


def _date_tokens(section: str) -> list[tuple[bool, str]]:
    merged: list[tuple[bool, str]] = []
    for literal, text in _literal_parts(section):
        if not literal and merged and not merged[-1][0]:
            merged[-1] = (False, merged[-1][1] + text)
        else:
            merged.append((literal, text))
    out: list[tuple[bool, str]] = []
    for literal, text in merged:
        if literal and not text.startswith("["):
            out.append((True, text))
            continue
        pos = 0
        for match in _DATE_TOKEN.finditer(text):
            if match.start() > pos:
                out.append((True, text[pos : match.start()]))
            out.append((False, match.group(0)))
            pos = match.end()
        if pos < len(text):
            out.append((True, text[pos:]))
    return out


def _minute_positions(tokens: list[tuple[bool, str]]) -> set[int]:
    """m/mm tokens that mean minutes: after an hour or before a second."""
    fields = [(i, t.lower()) for i, (lit, t) in enumerate(tokens) if not lit]
    out = set()
    for k, (i, tok) in enumerate(fields):
        if tok not in ("m", "mm"):
            continue
        before = fields[k - 1][1] if k else ""
        after = fields[k + 1][1] if k + 1 < len(fields) else ""
        if before.startswith(("h", "[h")) or after.startswith(("s", "[s")):
            out.add(i)
    return out


def _date_field(tok: str, when: datetime, loc: NumberLocale, twelve: bool) -> str:
    t = tok.lower()
    hour = when.hour % 12 or 12 if twelve else when.hour
    simple = {
        "yyyy": f"{when.year:04d}", "yy": f"{when.year % 100:02d}", "y": f"{when.year % 100:02d}",
        "mmmmm": loc.months[when.month - 1][0], "mmmm": loc.months[when.month - 1],
        "mmm": loc.months[when.month - 1][:3], "mm": f"{when.month:02d}", "m": str(when.month),
        "dddd": loc.days[when.weekday()], "ddd": loc.days[when.weekday()][:3],
        "dd": f"{when.day:02d}", "d": str(when.day), "hh": f"{hour:02d}", "h": str(hour),
        "ss": f"{when.second:02d}", "s": str(when.second),
        "am/pm": "AM" if when.hour < 12 else "PM", "a/p": "A" if when.hour < 12 else "P",
    }  # fmt: skip
    if t.startswith("."):
        digits = len(t) - 1
        return loc.decimal + f"{when.microsecond / 1e6:.{digits}f}"[2:]
    return simple.get(t, tok)


def _elapsed(tok: str, span: timedelta) -> str:
    seconds = span.total_seconds()
    unit = {"h": 3600, "m": 60, "s": 1}[tok[1].lower()]
    return f"{int(seconds // unit):0{len(tok) - 2}d}"


def _format_date(value: datetime | timedelta, section: str, loc: NumberLocale) -> str:
    tokens, minutes, twelve = _date_plan(section)
    span = value if isinstance(value, timedelta) else value - _EPOCH
    when = value if isinstance(value, datetime) else _EPOCH + value
    out = []
    for i, (literal, tok) in enumerate(tokens):
        if literal:
            out.append(tok)
        elif tok.startswith("["):
            out.append(_elapsed(tok, span))
        elif i in minutes:
            out.append(f"{when.minute:02d}" if len(tok) == 2 else str(when.minute))
        else:
            out.append(_date_field(tok, when, loc, twelve))
    return "".join(out)


# ----------------------------------------------------------------------------- entry


def _tagged_locale(section: str) -> NumberLocale | None:
    """The locale a date code names itself (``[$-407]``, ``[$-409]``): its month and day
    names, whatever the workbook's separators."""
    if _GERMAN_TAG.search(section):
        return GERMAN
    if _ENGLISH_TAG.search(section):
        return ENGLISH
    return None


def format_value(value: object, code: str | None, loc: NumberLocale = ENGLISH) -> str:
    """The text a spreadsheet shows for ``value`` under the format ``code``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return loc.true_false[0] if value else loc.true_false[1]
    code = code or "General"
    if code.lower() in _BUILTIN_SHORT_DATES:
        code = loc.short_date
    elif code.lower() == _BUILTIN_DATE_TIME:
        code = loc.short_date + " h:mm"  # format 22: the short date, as for 14, and the time
    sections = _split_sections(code)
    if isinstance(value, str):
        text_section = sections[3] if len(sections) > 3 else sections[0]
        if "@" not in text_section:
            return value
        return "".join(t for _, t in _literal_parts(text_section)).replace("@", value)
    moment = _as_datetime(value) if not isinstance(value, int | float) else None
    if isinstance(value, int | float):
        section, minus = _pick_section(sections, float(value))
        if not section and len(sections) > 1:
            return ""  # an empty section hides the value
        if _is_date_code(section):
            moment = _as_datetime(value)
            if moment is None:
                return str(value)
            return _format_date(moment, section, _tagged_locale(section) or loc)
        number, shows = _format_number(float(value), section, loc)
        return "-" + number if minus and shows else number
    if moment is not None:
        section = sections[0]
        if not _is_date_code(section):
            section = loc.short_date if isinstance(moment, datetime) and not (
                moment.hour or moment.minute or moment.second) else loc.short_date + " hh:mm"
        return _format_date(moment, section, _tagged_locale(section) or loc)  # fmt: skip
    return str(value)
