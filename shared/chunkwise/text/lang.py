"""A small, deterministic English/German language guess for `--lang auto`.

The document's language is guessed first; each part of it (a section under a
heading, a PDF page) is then guessed with the document's language as the
prior, so that the English sections of a German manual get English sentence
rules and the English analyzer.

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


# A part of a document (a section, a page) overrides the document's language
# only on clear evidence: enough stop words, and one language well ahead. A
# short part (a heading, a table of numbers) keeps the document's language.
_PART_SAMPLE_CHARS = 5_000
_PART_MIN_STOP_WORDS = 6
_PART_MARGIN = 2.0


def stop_words(sample: str) -> tuple[int, int]:
    """(German, English) stop-word counts of a sample (membership tests run in C)."""
    words = _WORD.findall(sample.lower())
    return sum(map(_GERMAN.__contains__, words)), sum(map(_ENGLISH.__contains__, words))


def detect_language(text: str) -> str:
    """'en', 'de' or 'und' for a text, from stop words in its first 20k chars."""
    german, english = stop_words(text[:_SAMPLE_CHARS])
    if german == english == 0:
        return "und"
    return "de" if german > english else "en"


def part_sample(text: str) -> str:
    """What of a part is read: its first 5k characters, so that guessing every
    part of a document stays linear in its size."""
    return text[:_PART_SAMPLE_CHARS]


def part_language(german: int, english: int, prior: str) -> str:
    """The language of a part with these stop-word counts, `prior` being the
    language of what contains it (the document, the section)."""
    if german + english < _PART_MIN_STOP_WORDS:
        return prior
    if german >= _PART_MARGIN * english:
        return "de"
    if english >= _PART_MARGIN * german:
        return "en"
    return prior


def detect_part_language(text: str, prior: str) -> str:
    """The language of one part of a document, `prior` being the document's."""
    return part_language(*stop_words(part_sample(text)), prior)
