"""A small, deterministic English/German language guess for `--lang auto`.

Only the two languages chunkwise segments with tailored rules are told apart;
anything else is "und" (ICU root rules). Stop-word counting on a bounded
sample keeps it O(1) in the document size.
"""

from __future__ import annotations

import re

_SAMPLE_CHARS = 20_000
_WORD = re.compile(r"[^\W\d_]+")
_GERMAN = frozenset(
    "der die das und ist nicht ein eine einen dem den des mit auf für von zu im "
    "sich auch wird werden oder bei nach wie über sind wir sie es noch aus dass".split()
)
_ENGLISH = frozenset(
    "the and is are of to in that it for with as was on be by this from or an "
    "not which have has at but can will you your".split()
)


def detect_language(text: str) -> str:
    """'en', 'de' or 'und' for a text, from stop words in its first 20k chars."""
    words = [w.lower() for w in _WORD.findall(text[:_SAMPLE_CHARS])]
    german = sum(w in _GERMAN for w in words)
    english = sum(w in _ENGLISH for w in words)
    if german == english == 0:
        return "und"
    return "de" if german > english else "en"
