"""A small evaluator of IAM identity policies: is (action, resource) allowed?

Used by the deploy tests on the policies read back from the emulator's IAM
(LocalStack community's simulate-principal-policy does not evaluate resources or
conditions, so it is not relied on) and by unit tests on the template's policies.
What it implements is what the stack's policies use: Effect Allow/Deny, Action and
NotAction, Resource and NotResource with ``*``/``?`` wildcards (actions matched
case-insensitively, resources case-sensitively), and the condition operators
StringEquals, StringLike, ArnEquals, ArnLike and Bool (a key missing from the request
context makes the condition false). An explicit Deny wins over any Allow; with no
matching Allow the call is denied. Anything else (another operator, a policy
variable) raises rather than guessing.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

ALLOWED, EXPLICIT_DENY, IMPLICIT_DENY = "allowed", "explicitDeny", "implicitDeny"


def _pattern(glob: str, *, ignore_case: bool) -> re.Pattern[str]:
    if "${" in glob:
        raise ValueError(f"policy variables are not evaluated: {glob!r}")
    # fnmatch's [...] classes are not IAM syntax: escape them, keep * and ?.
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.compile(f"^{body}$", re.IGNORECASE | re.DOTALL if ignore_case else re.DOTALL)


def matches(glob: str, value: str, *, ignore_case: bool = False) -> bool:
    return bool(_pattern(glob, ignore_case=ignore_case).match(value))


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [v]


def _condition_holds(cond: Mapping[str, Any], context: Mapping[str, str]) -> bool:
    for op, tests in cond.items():
        for key, wanted in tests.items():
            if key not in context:
                return False
            have, values = context[key], [str(w) for w in _as_list(wanted)]
            if op == "StringEquals" or op == "ArnEquals":
                ok = have in values
            elif op == "StringLike" or op == "ArnLike":
                ok = any(matches(w, have) for w in values)
            elif op == "Bool":
                ok = have.lower() in [w.lower() for w in values]
            else:
                raise ValueError(f"condition operator {op} is not evaluated")
            if not ok:
                return False
    return True


def _statement_applies(
    st: Mapping[str, Any], action: str, resource: str, context: Mapping[str, str]
) -> bool:
    if "Action" in st:
        if not any(matches(a, action, ignore_case=True) for a in _as_list(st["Action"])):
            return False
    elif "NotAction" in st:
        if any(matches(a, action, ignore_case=True) for a in _as_list(st["NotAction"])):
            return False
    else:
        raise ValueError(f"statement without Action/NotAction: {st}")
    if "Resource" in st:
        if not any(matches(r, resource) for r in _as_list(st["Resource"])):
            return False
    elif "NotResource" in st:
        if any(matches(r, resource) for r in _as_list(st["NotResource"])):
            return False
    else:
        raise ValueError(f"statement without Resource/NotResource: {st}")
    return _condition_holds(st.get("Condition", {}), context)


def statements(policies: Iterable[Mapping[str, Any] | str]) -> list[Mapping[str, Any]]:
    """Every statement of ``policies`` (documents, or their JSON as IAM returns it,
    URL-encoded or not)."""
    out: list[Mapping[str, Any]] = []
    for p in policies:
        if isinstance(p, str):
            text = urllib.parse.unquote(p) if p.lstrip().startswith("%") else p
            p = json.loads(text)
        out.extend(_as_list(p.get("Statement", [])))
    return out


def evaluate(
    policies: Iterable[Mapping[str, Any] | str],
    action: str,
    resource: str,
    context: Mapping[str, str] | None = None,
) -> str:
    ctx = context or {}
    decision = IMPLICIT_DENY
    for st in statements(policies):
        if not _statement_applies(st, action, resource, ctx):
            continue
        if st["Effect"] == "Deny":
            return EXPLICIT_DENY
        if st["Effect"] == "Allow":
            decision = ALLOWED
        else:
            raise ValueError(f"Effect {st['Effect']!r}")
    return decision


__all__ = ["ALLOWED", "EXPLICIT_DENY", "IMPLICIT_DENY", "evaluate", "matches"]
