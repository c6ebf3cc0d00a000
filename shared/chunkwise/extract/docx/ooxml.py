"""WordprocessingML names and property values, as the DOCX modules read them."""

from __future__ import annotations

from typing import Any

from ..tables import LAYOUT_SPACE

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def one_line(value: str) -> str:
    return LAYOUT_SPACE.sub(" ", value).strip()


def w(tag: str) -> str:
    return f"{_W}{tag}"


def is_on(element: Any) -> bool:
    """An OOXML on/off property: present and not switched off by its value."""
    value = element.get(w("val"))
    return value is None or value.lower() not in ("0", "false", "off")


def int_property(parent: Any, tag: str, default: int) -> int:
    element = parent.find(w(tag)) if parent is not None else None
    if element is None:
        return default
    try:
        return int(element.get(w("val"), str(default)))
    except ValueError:
        return default


def int_attr(element: Any, name: str) -> int:
    try:
        return int(element.get(w(name), "0"))
    except ValueError:
        return 0
