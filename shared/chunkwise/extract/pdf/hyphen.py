"""Whether a hyphen at a line end belongs to the word, decided by the document's own words.

TeX hyphenates: "docu-" + "mentation" is one word, the hyphen goes. An office
suite (LibreOffice, Word) with automatic hyphenation off, their default, only
breaks a line after a hyphen the text has: "timer-" + "based" is
"timer-based". The line end alone cannot tell them apart; the rest of the
document can:

- the pair written with its hyphen elsewhere on one line ("socket-based",
  "X-based") and not joined: the hyphen stays;
- the joined word elsewhere ("documentation"): the hyphen goes;
- neither, and both parts words the document writes on their own ("well" and
  "balanced", the second in small letters as it stands here) while it never
  writes them joined ("wellbalanced"): a compound broken at its own hyphen, and
  the hyphen stays whatever the rest of the document's line ends do. A
  document-wide vote would join it in a TeX document, where most line-end
  hyphens are syllables'; a syllable is rarely a word of its own of three
  letters or more ("docu", "mentation"), and a German noun ("Daten-" +
  "bank") is written capitalised on its own;
- otherwise: what the document's attested line-end hyphens mostly were; in a
  document where they do not decide (few or none attested), the hyphen stays
  when both parts are words of the document on their own ("timer", "based"),
  as hyphenated syllables rarely are; and after a single letter ("X-" +
  "based"), where no hyphenation breaks.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

_WORD = re.compile(r"[^\W\d_]+")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_LEFT = re.compile(r"([^\W\d_]+)-$")
_RIGHT = re.compile(r"^([^\W\d_]+)")
# Shortest part a compound of words is recognised by: "in", "an", "be" are words
# and syllables alike ("in-" + "formation", "be-" + "cause").
_MIN_PART = 3
# Distinct words a part may begin (each at least _MIN_PART letters longer) and still
# be a word of its own in a compound; the longest part counted so.
_PREFIX_WORDS = 3
_LONGEST_PREFIX = 8


@dataclass
class Hyphenation:
    """What one document's text says about its hyphenated words."""

    compounds: Counter[tuple[str, str]] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)
    lower_words: Counter[str] = field(default_factory=Counter)  # as written, in small letters
    keep_unattested: bool | None = None  # None: the attested line ends do not decide
    _prefixes: Counter[str] | None = field(default=None, repr=False)  # `_prefix_count`

    def keeps(self, line: str, following: str) -> bool | None:
        """True: keep the hyphen ending `line` before `following`; False: drop it;
        None: not a word broken at a hyphen (no letters on both sides)."""
        left, right = _LEFT.search(line), _RIGHT.match(following)
        if left is None or right is None:
            return None
        head, tail = left.group(1).casefold(), right.group(1).casefold()
        verdict = self._attested(head, tail)
        if verdict is None and self._compound_of_words(head, tail, right.group(1)):
            verdict = True
        if verdict is None:
            verdict = self.keep_unattested
        if verdict is None:  # the line's own parts count once: a word elsewhere is a second
            verdict = self.words[head] >= 2 and self.words[tail] >= 2
        # Hyphenation leaves at least two letters before the break ("X-" + "based" is not)
        return verdict or len(head) == 1

    def _compound_of_words(self, head: str, tail: str, written_tail: str) -> bool:
        """Both parts are words of the document on their own (each seen once more than
        on the two lines it breaks across), the second in small letters as written, and
        the document never writes them joined nor (on one line) with the hyphen."""
        if len(head) < _MIN_PART or len(tail) < _MIN_PART or not written_tail.islower():
            return False
        if self.words[head + tail] or self.compounds[(head, tail)]:
            return False
        if self._prefix_count(head) >= _PREFIX_WORDS:
            return False
        return self.words[head] >= 2 and self.lower_words[written_tail] >= 2

    def _prefix_count(self, head: str) -> int:
        """How many of the document's words begin with `head` and go on for a syllable
        or more: a part that starts many words ("dar": "darauf", "dargestellt",
        "darstellen") is where hyphenation breaks a word ("Dar-" + "unter"), not a
        word that stands in a compound."""
        if self._prefixes is None:
            self._prefixes = Counter(
                w[:k]
                for w in self.words
                for k in range(_MIN_PART, min(len(w) - _MIN_PART, _LONGEST_PREFIX) + 1)
            )
        return self._prefixes[head]

    def joined_elsewhere(self, line: str, following: str) -> bool:
        """The document writes the two parts as one word more often than with the
        hyphen: a typewriter word the typesetter did hyphenate ("\\phan-" +
        "tomsection", beside "\\phantomsection" everywhere else)."""
        left, right = _LEFT.search(line), _RIGHT.match(following)
        if left is None or right is None:
            return False
        return self._attested(left.group(1).casefold(), right.group(1).casefold()) is False

    def _attested(self, left: str, right: str) -> bool | None:
        hyphenated, joined = self.compounds[(left, right)], self.words[left + right]
        if hyphenated == joined:
            return None
        return hyphenated > joined


def learn(pages: Iterable[list[str]]) -> Hyphenation:
    """The words and hyphenated pairs of all lines (each page's lines in reading order),
    and the default for line-end hyphens that the document does not attest."""
    seen = Hyphenation()
    breaks: list[tuple[str, str]] = []
    for lines in pages:
        for i, line in enumerate(lines):
            found = _WORD.findall(line)
            seen.words.update(w.casefold() for w in found)
            seen.lower_words.update(w for w in found if w.islower())
            for compound in _COMPOUND.findall(line):
                parts = compound.casefold().split("-")
                seen.compounds.update(itertools.pairwise(parts))
            if i + 1 < len(lines) and line.endswith("-"):
                breaks.append((line, lines[i + 1]))
    votes = Counter(seen._attested(*pair) for pair in _pairs(breaks))
    if votes[True] != votes[False]:
        seen.keep_unattested = votes[True] > votes[False]
    return seen


def _pairs(breaks: list[tuple[str, str]]) -> Iterable[tuple[str, str]]:
    for line, following in breaks:
        left, right = _LEFT.search(line), _RIGHT.match(following)
        if left and right and right.group(1)[:1].islower():
            yield left.group(1).casefold(), right.group(1).casefold()
