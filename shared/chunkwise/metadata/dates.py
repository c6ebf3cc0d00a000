"""Which STRING values are dates, and the instant each one names (pure).

A STRING attribute whose value is a strict ISO-8601 date (``2024-05-31``) or date-time
(``2024-05-31T08:30``, ``...:00Z``, ``...:00.250+02:00``) is also indexed as a date, so
``greaterThan`` and friends compare it in time, not as text. A date without a time is
its midnight UTC, a date-time without an offset is UTC (as OpenSearch reads it), and
fractions of a second are cut to milliseconds (the precision of a ``date`` field).
Anything else (``31.05.2024``, ``2024-5-31``, week dates, ``24:00``) is text only.

The instant is written to the index in one canonical form
(``YYYY-MM-DDTHH:MM:SS.mmmZ``), so the node never has to parse the author's variant,
and a filter value is turned into epoch milliseconds by the same function.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

_ISO = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:T(?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:\.(?P<fraction>\d{1,9}))?)?"
    r"(?P<zone>Z|[+-]\d{2}:\d{2})?)?$"
)


def iso_instant(text: str) -> datetime | None:
    """The UTC instant a strict ISO-8601 date or date-time names; None if ``text`` is
    not one (or names no valid day or time)."""
    m = _ISO.match(text)
    if m is None:
        return None
    try:
        day = datetime.strptime(m["date"], "%Y-%m-%d")
        moment = day.replace(
            hour=int(m["hour"] or 0),
            minute=int(m["minute"] or 0),
            second=int(m["second"] or 0),
            microsecond=int((m["fraction"] or "0").ljust(3, "0")[:3]) * 1000,
            tzinfo=_zone(m["zone"]),
        )
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def canonical_date(text: str) -> str | None:
    """The form a date value is indexed in (``2024-05-31T06:30:00.000Z``), or None."""
    moment = iso_instant(text)
    if moment is None:
        return None
    # Not strftime: its %Y does not pad years before 1000 on every platform.
    m = moment
    return (
        f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}"
        f".{m.microsecond // 1000:03d}Z"
    )


def epoch_millis(text: str) -> int | None:
    """Milliseconds since 1970-01-01T00:00Z of a date value, or None if it is none."""
    moment = iso_instant(text)
    if moment is None:
        return None
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _zone(zone: str | None) -> timezone:
    if zone is None or zone == "Z":
        return UTC
    sign = 1 if zone[0] == "+" else -1
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if hours > 23 or minutes > 59:
        raise ValueError("offset out of range")
    return timezone(sign * timedelta(hours=hours, minutes=minutes))
