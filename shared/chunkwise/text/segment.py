"""ICU segmentation stage: sentences, words and grapheme clusters.

All public functions take and return *code-point* offsets into the Python
``str`` they were given.  ICU reports UTF-16 code-unit offsets;
:func:`utf16_to_codepoint_offsets` is the one place where they are converted.

Robustness
----------
* Lone surrogates (possible in a Python ``str``) cannot be handed to ICU
  as-is.  Every surrogate code point is replaced by U+FFFD in the copy given
  to ICU.  Both are one UTF-16 code unit and one code point, so offsets are
  unchanged; the caller's text is never modified.
* NUL, BOM and CR LF need nothing special: ICU never breaks inside CR LF
  (sentence, word and grapheme rules all keep it together).
* Word and sentence boundaries are always grapheme cluster boundaries: the
  rare ICU word/sentence boundary inside a cluster is dropped.

Thread safety
-------------
ICU ``BreakIterator`` objects are not thread-safe.  Instances are cached per
thread (``threading.local``) and per (kind, locale), so concurrent use from
several threads is safe; within one thread the functions are not re-entrant,
which they never need to be.
"""

from __future__ import annotations

import itertools
import re
import threading
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

import icu

__all__ = [
    "grapheme_boundaries",
    "split_sentences",
    "utf16_to_codepoint_offsets",
    "word_boundaries",
]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_CRLF = re.compile("\r\n")
_HIGH = re.compile("[^\x00-\u02ff]")

_local = threading.local()


def _normalise_lang(lang: str | None) -> str:
    """Primary language subtag in lower case; "" for root/undetermined."""
    if not lang:
        return ""
    primary = re.split(r"[-_@]", lang.strip(), maxsplit=1)[0].lower()
    if primary in ("", "und", "root", "xx", "auto"):
        return ""
    return primary


def _iterator(kind: str, locale_id: str) -> Any:
    """A cached BreakIterator for this thread. ``kind`` in sentence|word|character."""
    cache: dict[tuple[str, str], Any] | None = getattr(_local, "cache", None)
    if cache is None:
        cache = {}
        _local.cache = cache
    key = (kind, locale_id)
    it = cache.get(key)
    if it is None:
        locale = icu.Locale(locale_id)
        if kind == "sentence":
            it = icu.BreakIterator.createSentenceInstance(locale)
        elif kind == "word":
            it = icu.BreakIterator.createWordInstance(locale)
        elif kind == "character":
            it = icu.BreakIterator.createCharacterInstance(locale)
        else:  # pragma: no cover - internal misuse
            raise ValueError(f"unknown break iterator kind: {kind!r}")
        cache[key] = it
    return it


def _icu_boundaries(
    kind: str, locale_id: str, text: str, graphemes_only: bool = False
) -> list[int]:
    """All boundaries ICU reports (code points), including 0 and len(text).

    ``graphemes_only``: drop any boundary that is not also an extended
    grapheme cluster boundary.  ICU's word and sentence rules do not promise
    that (e.g. the word iterator breaks between ":" and THAI SARA AM, which
    the grapheme rules join as a SpacingMark; a space followed by a spacing
    mark is one cluster but may follow a sentence boundary).  Only boundaries
    next to a character >= U+0300 can be affected, so only those are checked.
    """
    if not text:
        return [0]
    is_ascii = text.isascii()
    if is_ascii:
        safe, astral = text, False
    else:
        # One O(n) pass in C finds both lone surrogates (strict encoding
        # fails) and astral characters (more code units than code points).
        try:
            n_units = len(text.encode("utf-16-le")) >> 1
            safe = text
        except UnicodeEncodeError:
            safe = _SURROGATE.sub("\ufffd", text)
            n_units = len(safe.encode("utf-16-le")) >> 1
        astral = n_units != len(text)
    ustr = icu.UnicodeString(safe)
    it = _iterator(kind, locale_id)
    it.setText(ustr)
    try:
        utf16 = [it.first(), *it]
    finally:
        # Drop ICU's reference to the (possibly large) text.
        it.setText(_EMPTY)
    cp_astral = [m.start() for m in _ASTRAL.finditer(text)] if astral else []
    bounds = _utf16_to_codepoints(utf16, cp_astral)
    if graphemes_only and not is_ascii:
        bounds = _grapheme_filter(safe, ustr, bounds, cp_astral)
    return bounds


_EMPTY = icu.UnicodeString("")


def _grapheme_filter(text: str, ustr: Any, bounds: list[int], cp_astral: list[int]) -> list[int]:
    n = len(text)
    if len(bounds) * 64 < n:
        # Few boundaries (sentences): look at each.
        suspects = [
            b for b in bounds if 0 < b < n and (text[b] >= "\u0300" or text[b - 1] >= "\u0300")
        ]
    else:
        # Many boundaries (words): start from the (usually few) characters
        # >= U+0300 and look the boundaries up around them.
        high = [m.start() for m in _HIGH.finditer(text)]
        if len(high) * 4 > len(bounds):
            suspects = [
                b for b in bounds if 0 < b < n and (text[b] >= "\u0300" or text[b - 1] >= "\u0300")
            ]
        else:
            suspects = []
            for q in sorted({q for p in high for q in (p, p + 1) if 0 < q < n}):
                i = bisect_left(bounds, q)
                if i < len(bounds) and bounds[i] == q:
                    suspects.append(q)
    cit = _iterator("character", "")
    cit.setText(ustr)
    try:
        drop = set()
        for b in suspects:
            u16 = b + bisect_left(cp_astral, b) if cp_astral else b
            if not cit.isBoundary(u16):
                drop.add(b)
    finally:
        cit.setText(_EMPTY)
    if not drop:
        return bounds
    return [b for b in bounds if b not in drop]


def utf16_to_codepoint_offsets(text: str, utf16_offsets: Iterable[int]) -> list[int]:
    """Convert UTF-16 code-unit offsets into ``text`` to code-point offsets.

    The one place where ICU offsets become Python offsets (together with its
    helper ``_utf16_to_codepoints``, which every function here goes through).
    Astral characters (U+10000 and above) are two UTF-16 code units but one
    code point; every other code point, including a lone surrogate, is one of
    each.  Offsets must lie on code-point boundaries (ICU never reports one
    inside a surrogate pair); an offset inside a pair maps to the start of
    that character.

    Fast path: text without astral characters returns the offsets unchanged
    (one C-speed encoding pass to find out; none for ASCII).  Otherwise O(n)
    to locate the astral characters, then O(log n) per offset.
    """
    offsets = list(utf16_offsets)
    if not offsets or text.isascii():
        return offsets
    if len(text.encode("utf-16-le", "surrogatepass")) >> 1 == len(text):
        return offsets
    return _utf16_to_codepoints(offsets, [m.start() for m in _ASTRAL.finditer(text)])


def _utf16_to_codepoints(offsets: list[int], cp_astral: list[int]) -> list[int]:
    """``cp_astral``: code-point indices of the astral characters, ascending."""
    if not cp_astral:
        return offsets
    # UTF-16 start offset of the k-th astral character = its code-point index + k.
    starts = [c + k for k, c in enumerate(cp_astral)]
    # Each astral character that starts before offset u adds one extra code unit.
    return [u - bisect_left(starts, u) for u in offsets]


def grapheme_boundaries(text: str) -> list[int]:
    """Extended grapheme cluster boundaries (code points), incl. 0 and len(text)."""
    if not text:
        return [0]
    if text.isascii():
        # ASCII has no Extend, ZWJ, SpacingMark, Prepend or Regional_Indicator
        # characters: every code point is a cluster except CR LF (GB3).
        bounds = list(range(len(text) + 1))
        if "\r\n" in text:
            inside = {m.start() + 1 for m in _CRLF.finditer(text)}
            bounds = [i for i in bounds if i not in inside]
        return bounds
    return _icu_boundaries("character", "", text)


def word_boundaries(text: str, lang: str | None = None) -> list[int]:
    """Offsets where ICU's word BreakIterator allows a boundary, incl. 0 and len(text).

    Boundaries that would fall inside an extended grapheme cluster are dropped
    (ICU's word rules alone allow a few, e.g. before THAI SARA AM after
    punctuation), so every offset returned is a safe cut.
    """
    if not text:
        return [0]
    return _icu_boundaries("word", _normalise_lang(lang), text, graphemes_only=True)


# ---------------------------------------------------------------------------
# Correction layer
# ---------------------------------------------------------------------------
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
# Rule 12 vetoes: abbreviations usually followed by more of the sentence.
# Compared in lower case ...
_CONTINUED_EN = frozenset(
    """etc al approx est incl excl esp misc dept depts govt univ assn assoc inc corp co
    cos ltd llc plc bros ave blvd rd hr hrs min mins yr yrs mo mos wk wks lb lbs oz ft
    sq pt pts qt gal mi ref ed eds ibid cf bldg mgr mgmt dist div intl natl jr sr vs
    ca nr abt""".split()
)
# ... and case-sensitively (US state abbreviations that are also words).
_CONTINUED_EN_CASED = frozenset(
    """Ala Ariz Ark Calif Colo Conn Del Fla Ga Ill Ind Kan Kans Ky La Md Mass Mich Minn
    Miss Mo Mont Neb Nebr Nev Okla Ore Pa Penn Tenn Tex Va Vt Wash Wis Wisc Wyo""".split()
)

_STARTERS_EN = frozenset(
    """The A An This That These Those It Its I He She We They You There Here But And Or
    So If When While As In On At For Then However Also Yet After Before My Our Your His
    Her Their What Why How Who Where Which Is Are Was Were Do Does Did Can Could Would
    Should Will Not No Yes Thanks Thank Please Now Today Some All Many Most One Just Even
    Since Although Because Of To With From By Let Each Every Both Such Other Another Once
    Still Well Oh Ok OK Hi Hello Dear Sincerely Regards Best Furthermore Moreover
    Meanwhile Instead Otherwise Finally First Second Later Again Never Always Maybe
    Perhaps Sorry Unfortunately Fortunately Overall Anyway Besides Hence Thus Therefore
    Nevertheless Indeed Me Him Them Us Any Nothing Everything Everyone Someone Anyone
    Nobody Only Very Much More Less Though Unless Until Whether Whatever Whoever During
    Under Over About Without Within Between Against Among Through Into Upon Like Had Has
    Have Be Being Been Am Get Got Go Went See Look Note Please""".split()
)
_STARTERS_DE = frozenset(
    """Der Die Das Den Dem Des Ein Eine Einen Einem Einer Eines Es Er Sie Ich Wir Ihr Man
    Du Dies Diese Dieser Dieses Diesen Diesem Jetzt Dann Danach Doch Aber Und Oder Auch So
    Da Denn Im In Am Auf Aus Bei Beim Mit Nach Von Vom Vor Zu Zum Zur Für Wenn Als Wie Was
    Wer Wo Warum Weil Nicht Kein Keine Nur Noch Schon Heute Hier Dort Deshalb Daher
    Trotzdem Allerdings Außerdem Mein Meine Unser Unsere Sein Seine Ihre Alle Viele Bis
    Seit Ab Um Über Unter Ja Nein Leider Dabei Damit Dazu Dafür Darauf Hierbei Insgesamt
    Zudem Somit Also Sehr Bitte Vielen Danke Gestern Morgen Nun Jedoch Ob Obwohl Während
    Nachdem Bevor Gegen Ohne Zwar Sonst Besonders Eigentlich Natürlich Vielleicht Wann
    Wieso Weshalb Welche Welcher Welches Uns Mir Mich Dir Dich Ihm Ihn Ihnen Jeder Jede
    Jedes Manche Einige Mehr Immer Wieder Hat Haben Ist Sind War Waren Wird Werden Wurde
    Kann Können Muss Müssen Soll Sollte Gibt Gab Dass Daß Sowohl Weder Entweder Zunächst
    Schließlich Anschließend Später Insbesondere Vor Hinter Neben Zwischen Durch""".split()
)
_MONTHS_DE = frozenset(
    """Januar Jänner Februar Feber März April Mai Juni Juli August September Oktober
    November Dezember Jan. Feb. Febr. Mär. Mrz. Apr. Jun. Jul. Aug. Sep. Sept. Okt.
    Nov. Dez.""".split()
)
_ORDINAL_TRIGGERS_DE = frozenset(
    """am vom zum bis im ab seit beim zur um an auf in nach vor unter über für mit bis
    der die das den dem des ein eine einem einen einer eines jeden jedem jeder jedes
    sein seine seinem seinen seiner ihr ihre ihrem ihren ihrer diesem dieser dieses
    diesen unser unsere unserem unseren unserer zum zur vom beim ins""".split()
)

_Class = str  # "strong" | "number" | "weak"


class _Rules:
    """Abbreviation tables of one language (or the union for und)."""

    def __init__(
        self,
        single: dict[str, _Class],
        multi: list[tuple[tuple[str, ...], _Class]],
        starters: frozenset[str],
        ordinals: bool,
        lower_after_stop: bool = False,
        lower_start: bool = False,
    ) -> None:
        self.single = single
        self.lower_after_stop = lower_after_stop
        self.lower_start = lower_start  # rule 12
        self.starters = starters
        self.ordinals = ordinals
        # Index multi-part abbreviations by the part that ends at a boundary:
        # part -> [(parts up to and incl. it, remaining parts, class)]
        self.multi: dict[str, list[tuple[tuple[str, ...], tuple[str, ...], _Class]]] = {}
        for parts, cls in multi:
            for k in range(1, len(parts) + 1):
                self.multi.setdefault(parts[k - 1], []).append((parts[:k], parts[k:], cls))


def _words(spec: str) -> list[str]:
    return spec.split()


_SINGLE_EN: dict[str, _Class] = {
    **dict.fromkeys(
        _words(
            """Mr Mrs Ms Messrs Mmes Mssrs Dr Drs Prof Profs Rev Hon Gen Col Capt Cpt Lt Sgt
            Maj Cmdr Adm Gov Sen Rep Pres Supt Insp Gov e.g i.e E.g I.e cf Cf viz vs approx
            ca"""
        ),
        "strong",
    ),
    **dict.fromkeys(
        _words(
            """No Nos no nos p pp Vol vol Vols vols Fig fig Figs figs Eq Eqs eq Ch ch Sec sec
            Sect Art art ext Ext Tel tel Ph Op op Para para Apt Rm Jan Feb Mar Apr Jun Jul
            Aug Sep Sept Oct Nov Dec"""
        ),
        "number",
    ),
    **dict.fromkeys(_words("St Mt Ft Sr Jr Ste Bros"), "weak"),
}
_MULTI_EN: list[tuple[tuple[str, ...], _Class]] = [
    (("e.", "g."), "strong"),
    (("i.", "e."), "strong"),
]

_SINGLE_DE: dict[str, _Class] = {
    **dict.fromkeys(
        _words(
            """z.B Z.B d.h D.h bzw Bzw ca Ca Dr Prof vgl Vgl ggf Ggf evtl Evtl inkl Inkl exkl
            zzgl bzgl Bzgl sog Sog Hr Hrn Frl geb gest verh ehem Dipl bspw Bspw insb insbes
            allg u.a z.T i.d.R u.U v.a o.g s.g Hrsg hrsg Mag Ing usf"""
        ),
        "strong",
    ),
    **dict.fromkeys(
        _words(
            """Nr S Abs Art Bd Kap Ziff Anm Rn Rdnr Abb Tab Jg Jhg Tel Fax Jan Feb Febr Mär
            Mrz Apr Jun Jul Aug Sep Sept Okt Nov Dez Pkt Tz"""
        ),
        "number",
    ),
    **dict.fromkeys(
        _words("St Str Std Min Sek Mio Mrd Tsd Jh Jhd Jhdt Fr Hbf Mill Jhs max min"),
        "weak",
    ),
}
_MULTI_DE: list[tuple[tuple[str, ...], _Class]] = [
    (("z.", "B."), "strong"),
    (("Z.", "B."), "strong"),
    (("d.", "h."), "strong"),
    (("D.", "h."), "strong"),
    (("i.", "d.", "R."), "strong"),
    (("z.", "T."), "strong"),
    (("u.", "U."), "strong"),
    (("v.", "a."), "strong"),
    (("o.", "g."), "strong"),
    (("u.", "a."), "weak"),
    (("v.", "Chr."), "weak"),
    (("n.", "Chr."), "weak"),
    (("u.", "v.", "m."), "weak"),
]


def _build_rules(code: str) -> _Rules:
    if code == "en":
        return _Rules(dict(_SINGLE_EN), _MULTI_EN, _STARTERS_EN, ordinals=False, lower_start=True)
    if code == "de":
        return _Rules(
            dict(_SINGLE_DE), _MULTI_DE, _STARTERS_DE, ordinals=True, lower_after_stop=True
        )
    if code == "":
        single: dict[str, _Class] = dict(_SINGLE_EN)
        for key, cls in _SINGLE_DE.items():
            # On a conflict keep the more cautious class (weak < number < strong).
            if key not in single or cls == "weak" or (cls == "number" and single[key] == "strong"):
                single[key] = cls
        return _Rules(single, _MULTI_EN + _MULTI_DE, _STARTERS_EN | _STARTERS_DE, ordinals=True)
    return _Rules({}, [], frozenset(), ordinals=False)


_RULES_CACHE: dict[str, _Rules] = {}


def _rules_for(code: str) -> _Rules:
    rules = _RULES_CACHE.get(code)
    if rules is None:
        rules = _RULES_CACHE[code] = _build_rules(code)
    return rules


def _clean_next(token: str) -> str:
    return token.rstrip(_CLOSERS + ".")


def _is_starter(token: str, rules: _Rules) -> bool:
    word = _clean_next(token)
    return word in rules.starters or word.capitalize() in rules.starters


def _capitalised_non_starter(token: str, rules: _Rules) -> bool:
    return bool(token) and token[0].isupper() and not _is_starter(token, rules)


def _merge_after(cls: _Class, nxt: str, rules: _Rules) -> bool:
    if not nxt:
        return False
    if cls == "strong":
        return True
    if cls == "number":
        return nxt[0].isdigit()
    # weak
    return not _is_starter(nxt, rules)


def _is_candidate(tok: str, rules: _Rules) -> bool:
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


def _keep_boundary(text: str, b: int, seg_start: int, rules: _Rules) -> bool:
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


def _keep_after_mark(text: str, j: int, b: int, last: str, rules: _Rules) -> bool:
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


def _keep_after_dot(text: str, j: int, b: int, seg_start: int, tail: str, rules: _Rules) -> bool:
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


def _keep_after_abbreviation(left: list[str], right: list[str], rules: _Rules) -> bool:
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
        if _clean_next(nxt) in _MONTHS_DE or nxt in _MONTHS_DE:
            return False
        if prev.lower() in _ORDINAL_TRIGGERS_DE and _capitalised_non_starter(nxt, rules):
            return False
    return True


def _correct(text: str, bounds: list[int], rules: _Rules) -> list[int]:
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


def _ordinary_word_before_stop(text: str, dot: int, rules: _Rules) -> bool:
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


def _continues(word: str, rules: _Rules) -> bool:
    """Rule 12 veto: a known abbreviation, usually followed by more of the sentence."""
    return (
        word in rules.single
        or word.lower() in rules.single
        or word.capitalize() in rules.single
        or word.lower() in _CONTINUED_EN
        or word in _CONTINUED_EN_CASED
    )


def _insert_boundaries(text: str, rules: _Rules) -> list[int]:
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


def raw_sentence_boundaries(text: str, lang: str | None = None) -> list[int]:
    """ICU's own sentence boundaries (code points), incl. 0 and len(text).

    No corrections; exposed for evaluation and debugging.
    """
    if not text:
        return [0]
    return _icu_boundaries("sentence", _normalise_lang(lang), text)


def split_sentences(text: str, lang: str | None = None) -> list[tuple[int, int]]:
    """Split ``text`` into sentences: half-open code-point spans.

    The spans are contiguous and cover the text exactly (first start 0, last
    end ``len(text)``), none is empty; whitespace after a sentence stays with
    it, as in ICU.  Empty text gives ``[]``.

    ``lang``: "en" and "de" (any region, e.g. "de-AT") use ICU's rules for
    that locale plus the corrections of that language; None, "" or "und" use
    ICU's root rules plus the corrections of both English and German (the
    service's languages; a text of unknown language is most likely one of
    them).  Any other language gets ICU's rules for it and only the
    language-neutral corrections (see module docstring).
    """
    if not text:
        return []
    code = _normalise_lang(lang)
    rules = _rules_for(code)
    bounds = _icu_boundaries("sentence", code, text, graphemes_only=True)
    if len(bounds) > 2:
        bounds = _correct(text, bounds, rules)
    added = _insert_boundaries(text, rules)
    if added:
        bounds = sorted(set(bounds).union(added))
    return list(itertools.pairwise(bounds))
