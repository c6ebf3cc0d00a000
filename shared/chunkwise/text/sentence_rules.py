"""Corrections of ICU's sentence boundaries, for English and German (pure, no I/O).

`chunkwise.text.segment.split_sentences` hands ICU's boundaries to `correct`, which
removes the ones the rules below judge to be wrong, and adds those of
`insert_boundaries`. The language tables the rules consult are in
`chunkwise.text.abbreviations`; the rules are measured against a gold corpus
(bench/sentences/).
"""

from __future__ import annotations

import re

from chunkwise.text.abbreviations import (
    CONTINUED_EN,
    CONTINUED_EN_CASED,
    MONTHS_DE,
    ORDINAL_TRIGGERS_DE,
    AbbreviationClass,
    Rules,
)

__all__ = ["correct", "insert_boundaries"]

# The rules
# ---------
#
# ICU proposes sentence boundaries; rules 1-9 below can only *remove* one
# (merge two ICU sentences).  A boundary is examined only when the text
# before it (ignoring the whitespace ICU attached to the sentence) ends in
# "." (rules 1-7), "?"/"!" (rule 9), or has no whitespace at all (rule 8).  A
# boundary whose whitespace contains a line break is always kept.
#
# Rules 10-12 *add* a boundary where ICU has none.  An added boundary always
# lies at the end of a run of whitespace, directly before a letter or an
# opening quote/bracket, so it is a grapheme cluster boundary and never
# inside CR LF (like ICU's own, the whitespace stays with the sentence
# before).  Added boundaries are not examined by rules 1-9.
#
# Vocabulary: ``left`` = the whitespace-delimited token ending at the dot
# (leading quotes/brackets stripped), ``prev`` = the token before it,
# ``next`` = the first token after the boundary (leading quotes/brackets
# stripped).  A *starter* is a closed-class word that typically begins a
# sentence ("The", "He", "Dann", "Die", ...): before a starter an ambiguous
# abbreviation is taken to end the sentence.
#
# Rules (for a dot: 7, then 1, then 2-4, 5, 6; the first that applies decides):
#  1. multi-part abbreviations ("z. B.", "d. h.", "u. a.", "i. d. R.",
#     "v. Chr.", "e. g."): never split between their parts; after the last
#     part the abbreviation's class (below) decides.
#  2. strong abbreviations (never sentence-final: "Dr.", "Prof.", "Mr.",
#     "Mrs.", "bzw.", "ca.", "Nr.", "vgl.", "z.B.", "e.g.", "i.e.", ...):
#     merge whatever follows.
#  3. number abbreviations ("Nr.", "S.", "Abs.", "No.", "p.", "Fig.",
#     month abbreviations "Sept.", "Okt." ...): merge when next starts with a
#     digit ("No. 5" merges, "No. I disagree" does not).
#  4. weak abbreviations ("St.", "Mio.", "Mrd.", "Std.", "u. a.",
#     "v. Chr.", ...): merge unless next is a starter ("5 Mio. Euro" merges,
#     "5 Mio. Die ..." does not).
#  5. initials: one or more capital letters each followed by "." ("J.",
#     "W.H.S.", "U.S."): merge when next is another initial or a capitalised
#     non-starter ("J. R. R. Tolkien", "George W. Bush", "U.S. Army"; but
#     "Plan B. The ..." and "in the U.S. The ..." keep their break).
#  6. German ordinals and dates (de and und only): a 1-3 digit number plus
#     "." merges when next is a month name ("am 3. Oktober", "bis 13.
#     August") or when prev is a preposition/article/determiner and next is
#     a capitalised non-starter ("der 2. Weltkrieg", "im 19. Jahrhundert").
#     "Das kostet 5. Dann ..." keeps its break (prev "kostet" is no trigger),
#     and so does "am 5. Dann ..." (next is a starter).  Years (4 digits)
#     never merge.
#  7. enumerators: an ICU sentence that consists only of a list label
#     ("2.", "10.", "a)", "IV.") is merged with the sentence that follows.
#  8. glued terminators: "?", "!" or "." immediately followed (no space) by
#     an ASCII letter/digit or URL character is not a sentence end
#     ("search?q=x", "Yahoo!Mail", "...Now").
#  9. "?" or "!" inside a closing quote or bracket, followed by a lower-case
#     word: the quotation or aside goes on ('"Welcome!" to Darin',
#     '„Wirklich?“ fragte sie').  German (only "de", where sentences never
#     start in lower case) also merges "?"/"!" + lower-case word without a
#     closer; English text often starts sentences in lower case.
#
# 10. ellipsis character: "…" (U+2026), optionally followed by closing
#     quotes/brackets, then whitespace and a capitalised word, ends the
#     sentence ("Es war vorbei… Dann ging er.").  ICU's rules treat "..."
#     (three full stops) that way but "…" as an ordinary character, so the
#     typographic form would otherwise never end a sentence.  Before a
#     lower-case word it does not ("Ich dachte… naja"), as with "...".
# 11. emoticons: a free-standing emoticon (":)", ";-)", ":-(", ":D", ":P",
#     "^^", "<3", "xD", ...) followed by whitespace and a capitalised word
#     ends the sentence it closes ("Super :-) Wir kommen wieder.").  ICU sees
#     no terminal there, and none after "Super! :-) Wir ...": ":" right after
#     "! " continues the sentence in ICU's rules.
# 12. lower-case sentence starts (English only): a full stop after an
#     ordinary word, then whitespace and a lower-case word, ends the sentence
#     ("i loved it. why do you ..."; informal English often starts sentences
#     in lower case; ICU never breaks before a lower-case word after ".").
#     "Ordinary word": letters (with inner "'" or "-") or a word with digits
#     and letters ("5th"), not a single letter (an initial), not an
#     abbreviation of rules 2-4, not one that is usually followed by more of
#     the sentence ("etc.", "Inc.", "approx.", "et al.", units such as "lbs.",
#     US state abbreviations such as "Calif."), no inner dot ("U.S.", "a.m.")
#     and not after another dot ("..").  A closing quote or bracket between
#     the word and the full stop ('"... on". maybe', "(3-3264). you") also
#     counts as an end; one *after* the full stop does not: a quotation or
#     aside that ends there is usually continued ('"Go home." he said',
#     "(see above.) and then", as in rule 9).  German is left out: written
#     German starts every sentence with a capital, and after a full stop a
#     lower-case word almost always follows an abbreviation no list can be
#     complete for.  So is None/"und": its text may be German.
#
# Rules 1-5 use the abbreviation lists of the language ("en", "de"); None /
# "und" use the union of both (rule 9 without a closer: "de" only); other
# languages get rules 5, 7, 8 and 9 (with a closer) only.  Rules 10 and 11
# apply to every language; rule 12 to "en" only.

_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x85\u2028\u2029]")
_OPENERS = "\"'`„“”‚‘’»«‹›([{¿¡*"
_QUOTE_CLOSERS = "\"'`“”‘’»«‹›)]},"
_CLOSERS = ",;:\"'`“”‘’»«‹›)]}!?"
_INITIALS = re.compile(r"(?:[^\W\d_]\.){1,5}")
_ORDINAL = re.compile(r"\d{1,3}\.")
_ENUM_LABEL = re.compile(r"\s*(?:\(?\d{1,3}[.)]|\(?[A-Za-z][)]|[IVXLC]{1,6}\.|[a-z]\.)\s*")
_GLUED_NEXT = re.compile(r"[A-Za-z0-9=&%/#_~+\-]")
# Rules 10-12: the end of the whitespace run is the candidate boundary; the
# lookahead requires a letter after optional opening quotes/brackets (upper
# or lower case is checked in code).
_NEXT_WORD = "(?=[" + re.escape(_OPENERS) + r"]*[^\W\d_])"
_CLOSE = r"[\"'`“”‘’»«‹›)\]}]*"
_ELLIPSIS_BREAK = re.compile("\u2026" + _CLOSE + r"\s+" + _NEXT_WORD)
# (For speed these two start with a character class, not a lookbehind or an
# alternation; the character before the match and the exact emoticon form
# are checked in code.)
_EMOTICON_BREAK = re.compile(r"[:;=^<x][-'^o_]?[()\[\]DPpb/\\|*^3]{1,3}\s+" + _NEXT_WORD)
_EMOTICON = re.compile(r"[:;=][-'^o]?[()\[\]DPpb/\\|*]{1,3}|\^_?\^|<3|xD")
# Rule 12 is for English: a Latin-1 lower-case letter after the openers.
_LOWER_START = re.compile(r"\.\s+(?=[" + re.escape(_OPENERS) + r"]*[a-zß-öø-ÿ])")
_PLAIN_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\w*[^\W\d_]\w*")


def _clean_next(token: str) -> str:
    return token.rstrip(_CLOSERS + ".")


def _is_starter(token: str, rules: Rules) -> bool:
    word = _clean_next(token)
    return word in rules.starters or word.capitalize() in rules.starters


def _capitalised_non_starter(token: str, rules: Rules) -> bool:
    return bool(token) and token[0].isupper() and not _is_starter(token, rules)


def _merge_after(cls: AbbreviationClass, nxt: str, rules: Rules) -> bool:
    if not nxt:
        return False
    if cls == "strong":
        return True
    if cls == "number":
        return nxt[0].isdigit()
    # weak
    return not _is_starter(nxt, rules)


def _is_candidate(tok: str, rules: Rules) -> bool:
    """Could ``tok`` (ending in ".") be an abbreviation, initials or ordinal?"""
    if tok in rules.multi or tok[:-1] in rules.single:
        return True
    first = tok[:1]
    if first.isdigit():
        return rules.ordinals and _ORDINAL.fullmatch(tok) is not None
    return (
        len(tok) <= 10
        and tok[1:2] == "."
        and first.isupper()
        and _INITIALS.fullmatch(tok) is not None
    )


def _keep_boundary(text: str, b: int, seg_start: int, rules: Rules) -> bool:
    """Decide whether the ICU boundary ``b`` (0 < b < len(text)) is real."""
    before = _text_before(text, b)
    if before is None:
        return True
    j, tail = before
    last = tail[-1]
    if j == b:
        # Rule 8: glued terminator.
        return not (last in ".?!" and _GLUED_NEXT.match(text, b) is not None)
    if last != ".":
        return _keep_after_mark(text, j, b, last, rules)
    return _keep_after_dot(text, j, b, seg_start, tail, rules)


def _text_before(text: str, b: int) -> tuple[int, str] | None:
    """Where the text before ``b`` ends once trailing whitespace is skipped (j),
    and up to 16 characters ending there; None when only whitespace precedes
    the boundary up to a line break or the start of the text: every rule then
    keeps the boundary."""
    lo = b - 16 if b > 16 else 0
    tail = text[lo:b].rstrip()
    if tail:
        return lo + len(tail), tail
    # Only whitespace in the window. With a line break in it every rule keeps
    # the boundary; answer now instead of walking back over the whole run, which
    # made runs of blank lines quadratic (3,000 lines of " \n": 2.2 s; now linear).
    if _LINE_BREAK.search(text, lo, b):
        return None
    j = lo
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j == 0:
        return None
    return j, text[max(0, j - 16) : j]


def _keep_after_mark(text: str, j: int, b: int, last: str, rules: Rules) -> bool:
    """A boundary after anything but a dot; only "?"/"!" may be undone (rule 9)."""
    if last not in "?!" and last not in _QUOTE_CLOSERS:
        return True
    if _LINE_BREAK.search(text, j, b):
        return True
    # Rule 9: "?"/"!" followed by a lower-case word.
    k = j
    while k > 0 and text[k - 1] in _QUOTE_CLOSERS:
        k -= 1
    if k > 0 and text[k - 1] in "?!" and text[b].islower():
        return not (k < j or rules.lower_after_stop)
    return True


def _keep_after_dot(text: str, j: int, b: int, seg_start: int, tail: str, rules: Rules) -> bool:
    """A boundary after a dot: a list label, an abbreviation, initials or an ordinal
    may make it false."""
    # Rule 7: an ICU sentence that is only a list label.
    if b - seg_start <= 12 and _ENUM_LABEL.fullmatch(text, seg_start, b):
        return _LINE_BREAK.search(text, j, b) is not None

    # Cheap pre-filter: the token before the dot must be a candidate.  (A
    # token cut by the 16-character window is 16 long: never a candidate.)
    if not _is_candidate(tail.rsplit(None, 1)[-1].lstrip(_OPENERS), rules):
        return True
    if _LINE_BREAK.search(text, j, b):
        return True
    around = _tokens_around(text, j, b)
    return True if around is None else _keep_after_abbreviation(*around, rules)


def _tokens_around(text: str, j: int, b: int) -> tuple[list[str], list[str]] | None:
    """Up to three tokens before the dot (ending at ``j``) and after ``b``, opening
    quotes stripped; None when either side has no word."""
    lo = max(0, j - 80)
    left_tokens = text[lo:j].split()
    if lo > 0 and len(left_tokens) <= 3:
        left_tokens = left_tokens[1:]  # the first one may be cut
    if not left_tokens:
        return None
    left = [t.lstrip(_OPENERS) for t in left_tokens[-3:]]
    right = [t.lstrip(_OPENERS) for t in text[b : b + 48].split()[:3]]
    if not right or not right[0]:
        return None
    return left, right


def _keep_after_abbreviation(left: list[str], right: list[str], rules: Rules) -> bool:
    """Rules 1-6, on the tokens around a dot (the last of ``left`` ends in it)."""
    tok = left[-1]
    prev = left[-2] if len(left) > 1 else ""
    nxt = right[0]

    # Rule 1: multi-part abbreviations.
    for before, after, cls in rules.multi.get(tok, ()):
        n = len(before)
        if tuple(left[-n:]) != before:
            continue
        if after:
            if tuple(right[: len(after)]) == after or (
                # the last part may carry trailing punctuation: "z. B.,"
                tuple(_clean_next(t) + "." for t in right[: len(after)]) == after
            ):
                return False
            continue
        return not _merge_after(cls, nxt, rules)

    # Rules 2-4: single abbreviations.
    single_cls = rules.single.get(tok[:-1])
    if single_cls is not None:
        return not _merge_after(single_cls, nxt, rules)

    # Rule 5: initials.
    if _INITIALS.fullmatch(tok) and tok[0].isupper():
        if _INITIALS.fullmatch(_clean_next(nxt) + ".") or _INITIALS.fullmatch(nxt):
            return not nxt[0].isupper()
        return not _capitalised_non_starter(nxt, rules)

    # Rule 6: German ordinals and dates.
    if rules.ordinals and _ORDINAL.fullmatch(tok):
        if _clean_next(nxt) in MONTHS_DE or nxt in MONTHS_DE:
            return False
        if prev.lower() in ORDINAL_TRIGGERS_DE and _capitalised_non_starter(nxt, rules):
            return False
    return True


def correct(text: str, bounds: list[int], rules: Rules) -> list[int]:
    """Drop the ICU boundaries that the rules above judge to be wrong."""
    out = [bounds[0]]
    for b in bounds[1:-1]:
        if _keep_boundary(text, b, out[-1], rules):
            out.append(b)
    out.append(bounds[-1])
    return out


def _starts_with(text: str, i: int, upper: bool) -> bool:
    """Is the first letter at or after ``i`` (past opening quotes) upper/lower case?"""
    while text[i] in _OPENERS:
        i += 1
    return text[i].isupper() if upper else text[i].islower()


def _ordinary_word_before_stop(text: str, dot: int, rules: Rules) -> bool:
    """Rule 12: does the token ending at the full stop ``text[dot]`` end a sentence?"""
    lo = max(0, dot - 40)
    left = text[lo:dot].rsplit(None, 1)[-1] if text[lo:dot].strip() else ""
    if not left or (lo > 0 and len(left) == dot - lo):
        return False  # no token, or cut by the window (too long to judge)
    word = left.lstrip(_OPENERS)
    closed = word.rstrip(_QUOTE_CLOSERS)
    if closed != word:
        # A quotation or bracket closed right before the stop: "(Smith et al)."
        # still continues, whatever closes around the abbreviation.
        inner = closed.lstrip(_OPENERS)
        return bool(inner) and inner[-1] not in ".?!" and not _continues(inner, rules)
    if len(word) < 2 or _PLAIN_WORD.fullmatch(word) is None:
        return False
    return not _continues(word, rules)


def _continues(word: str, rules: Rules) -> bool:
    """Rule 12 veto: a known abbreviation, usually followed by more of the sentence."""
    return (
        word in rules.single
        or word.lower() in rules.single
        or word.capitalize() in rules.single
        or word.lower() in CONTINUED_EN
        or word in CONTINUED_EN_CASED
    )


def insert_boundaries(text: str, rules: Rules) -> list[int]:
    """Boundaries ICU does not report that rules 10-12 add (unsorted)."""
    n = len(text)
    out: list[int] = []
    if "\u2026" in text:
        out += [
            m.end()
            for m in _ELLIPSIS_BREAK.finditer(text)
            # "[…]" and "(…)" mark an omission inside a quoted sentence
            if m.end() < n
            and not (m.start() > 0 and text[m.start() - 1] in "[(")
            and _starts_with(text, m.end(), upper=True)
        ]
    out += [
        m.end()
        for m in _EMOTICON_BREAK.finditer(text)
        if (m.start() == 0 or text[m.start() - 1].isspace())  # a free-standing token
        and _EMOTICON.fullmatch(m.group().rstrip()) is not None
        and m.end() < n
        and _starts_with(text, m.end(), upper=True)
    ]
    if rules.lower_start:
        out += [
            m.end()
            for m in _LOWER_START.finditer(text)
            if m.end() < n
            and m.start() > 0
            and text[m.start() - 1] != "."
            and not text[m.start() - 1].isspace()
            and _starts_with(text, m.end(), upper=False)
            and _ordinary_word_before_stop(text, m.start(), rules)
        ]
    return out
