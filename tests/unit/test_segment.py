"""Unit tests for chunkwise.text.segment (ICU segmentation + corrections). Pure, no I/O."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import pytest

from chunkwise.text.breaks import icu_boundaries
from chunkwise.text.segment import (
    grapheme_boundaries,
    raw_sentence_boundaries,
    split_sentences,
    utf16_to_codepoint_offsets,
    word_boundaries,
)


def sentences(text: str, lang: str | None) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text, lang)]


def assert_covers(text: str, spans: list[tuple[int, int]]) -> None:
    assert spans[0][0] == 0
    assert spans[-1][1] == len(text)
    for (a, b), (c, _d) in itertools.pairwise(spans):
        assert b == c
        assert a < b


# --- UTF-16 conversion -----------------------------------------------------


def _utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def test_utf16_fast_path_bmp_only() -> None:
    text = "Grüße, Ωmega — 漢字"
    assert utf16_to_codepoint_offsets(text, [0, 3, len(text)]) == [0, 3, len(text)]


def test_utf16_astral_offsets_shift() -> None:
    text = "a😀b𝄞c"  # two astral chars, each 2 code units
    # code points: a=0 😀=1 b=2 𝄞=3 c=4 end=5 ; utf16: a=0 😀=1 b=3 𝄞=4 c=6 end=7
    assert utf16_to_codepoint_offsets(text, [0, 1, 3, 4, 6, 7]) == [0, 1, 2, 3, 4, 5]


def test_utf16_every_codepoint_offset_round_trips() -> None:
    text = "x👩\u200d👩\u200d👧 🇩🇪 é\u0301 \ud800 z\U0001d54f"
    u16 = [_utf16_len(text[:i]) for i in range(len(text) + 1)]
    assert utf16_to_codepoint_offsets(text, u16) == list(range(len(text) + 1))


def test_utf16_empty_iterable() -> None:
    assert utf16_to_codepoint_offsets("😀", []) == []


# --- graphemes -------------------------------------------------------------


@pytest.mark.parametrize(
    "cluster",
    [
        "👩\u200d👩\u200d👧\u200d👦",  # ZWJ family
        "🇩🇪",  # flag (regional indicator pair)
        "👍🏽",  # skin tone modifier
        "e\u0301\u0323",  # combining marks
        "\u1100\u1161\u11a8",  # Hangul jamo L V T = one syllable
        "\r\n",  # CRLF
        "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # tag sequence
    ],
)
def test_grapheme_cluster_is_atomic(cluster: str) -> None:
    text = "a" + cluster + "b"
    assert grapheme_boundaries(text) == [0, 1, 1 + len(cluster), len(text)]


def test_grapheme_two_flags_are_two_clusters() -> None:
    text = "🇩🇪🇬🇧"
    assert grapheme_boundaries(text) == [0, 2, 4]


def test_grapheme_empty() -> None:
    assert grapheme_boundaries("") == [0]


# --- words -----------------------------------------------------------------


def test_word_boundaries_basic_and_astral() -> None:
    text = "Hallo 😀 Welt"
    b = word_boundaries(text, "de")
    assert b[0] == 0 and b[-1] == len(text)
    assert 5 in b and 6 in b and 7 in b and 8 in b
    assert text[b[-2] : b[-1]] == "Welt"


def test_word_boundaries_keep_crlf_and_zwj() -> None:
    text = "a\r\nb 👩\u200d👩\u200d👧 c"
    b = word_boundaries(text, "en")
    assert 2 not in b  # never between CR and LF
    zwj_start = text.index("👩")
    for i in range(zwj_start + 1, zwj_start + 5):
        assert i not in b


# --- sentences: raw behaviour & robustness ----------------------------------


def test_empty_text_gives_no_sentences() -> None:
    assert split_sentences("") == []


def test_trailing_whitespace_stays_with_sentence() -> None:
    text = "One. Two.  Three."
    assert sentences(text, "en") == ["One. ", "Two.  ", "Three."]


def test_astral_text_spans_are_code_points() -> None:
    text = "Ich 😀 lache. Du 🇩🇪 nicht."
    assert sentences(text, "de") == ["Ich 😀 lache. ", "Du 🇩🇪 nicht."]


@pytest.mark.parametrize(
    "text",
    [
        "a\ud800b. C d. \udfff E.",
        "Null\x00byte. Next one.",
        "\ufeffBOM first. Then more.",
        "Line one.\r\nLine two.\rLine three.\nEnd.",
        "\ud83d\ude00 pair of lone halves. Ok.",
        "   ",
        ".",
    ],
)
def test_bad_input_does_not_crash_and_covers(text: str) -> None:
    for lang in ("en", "de", None):
        spans = split_sentences(text, lang)
        assert_covers(text, spans)


def test_crlf_never_split() -> None:
    text = "Line one.\r\nLine two.\r\n\r\nThree."
    for lang in ("en", "de", None):
        for a, b in split_sentences(text, lang):
            assert not (a > 0 and text[a - 1] == "\r" and text[a] == "\n")
            assert not (b < len(text) and text[b - 1] == "\r" and text[b] == "\n")


def test_lang_variants_accepted() -> None:
    text = "Eins. Zwei."
    expected = [(0, 6), (6, 11)]
    for lang in ("de", "de-AT", "de_CH", "DE", "und", None, "", "fr"):
        assert split_sentences(text, lang) == expected


# --- sentences: correction layer ------------------------------------------
# Each case: (lang, text, expected sentences). Raw ICU gets every one of the
# merged cases wrong (checked in test_raw_icu_gets_these_wrong below), so
# these tests fail if the correction layer stops working.

MERGE_CASES_DE = [
    # ordinals and dates
    "Wir treffen uns am 3. Oktober in Berlin. Dann gehen wir essen.",
    "Am 24. Dezember ist Heiligabend. Alle feiern.",
    "Der 2. Weltkrieg endete 1945. Danach kam der Wiederaufbau.",
    "Das Haus stammt aus dem 18. Jahrhundert. Es ist alt.",
    "Die Grabung dauert vom 2. Juli bis 13. August. Wir helfen mit.",
    # abbreviations
    "Man nehme z. B. Berlin als Beispiel. Das ist gut.",
    "Er kam zu spät, d. h. Peter musste warten. Dann gingen sie.",
    "Es spielten u. a. Bayern und Dortmund. Das Spiel war gut.",
    "Wir fahren mit dem Rad bzw. Auto. Dann essen wir.",
    "Das kostet ca. 5 Mio. Euro pro Jahr. Das ist viel.",
    "Heute kommt Dr. Müller vorbei. Er ist nett.",
    "Sie fragte Prof. Schmidt um Rat. Er half.",
    "Er wohnt in St. Pankraz am See. Es ist schön.",
    "Wir brauchen ca. 7 Tage. Dann ist es fertig.",
    "Er las den Text vgl. Kapitel drei. Gut.",
]
MERGE_CASES_EN = [
    "Dr. Smith arrived late. He sat down.",
    "Mr. and Mrs. Smith came. They left.",
    "I met Ms. Jones today. She was kind.",
    "Use tools, e.g. Hammers and saws. That works.",
    "The winner, i.e. Bob, left. Then he came back.",
    "J. R. R. Tolkien wrote it. He was British.",
    "George W. Bush spoke. Then he left.",
    "The U.S. Army left. Then peace came.",
    "The Sept. 11 Commission met. It ended.",
    "They live in St. Louis now. It is big.",
    "Visit example.com/search?q=x now. Then leave.",
    "Capt. Spastic's list is long. Read it.",
]


# ICU already keeps these together (no break before a digit); they must stay so.
ALREADY_RIGHT = [
    ("de", "Er wohnt in Haus Nr. 5 am Markt. Sie nicht."),
    ("de", "Siehe S. 12 im Anhang. Danke."),
    ("en", "See No. 5 for details. Thanks."),
    ("en", "He paid approx. 5 dollars. Fine."),
]


def _two_sentences(text: str) -> list[str]:
    cut = text.rindex(". ") + 2
    return [text[:cut], text[cut:]]


@pytest.mark.parametrize("text", MERGE_CASES_DE)
def test_german_corrections(text: str) -> None:
    assert sentences(text, "de") == _two_sentences(text)
    assert sentences(text, None) == _two_sentences(text)


@pytest.mark.parametrize("text", MERGE_CASES_EN)
def test_english_corrections(text: str) -> None:
    assert sentences(text, "en") == _two_sentences(text)
    assert sentences(text, "und") == _two_sentences(text)


@pytest.mark.parametrize(("lang", "text"), ALREADY_RIGHT)
def test_number_abbreviations_stay_together(lang: str, text: str) -> None:
    assert sentences(text, lang) == _two_sentences(text)


@pytest.mark.parametrize(
    ("lang", "text"), [("de", t) for t in MERGE_CASES_DE] + [("en", t) for t in MERGE_CASES_EN]
)
def test_raw_icu_gets_these_wrong(lang: str, text: str) -> None:
    """Guards the value of the cases above: ICU alone over-splits each of them."""
    assert len(raw_sentence_boundaries(text, lang)) > 3


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        # true breaks that must survive
        ("de", "Das kostet 5. Dann gehen wir.", ["Das kostet 5. ", "Dann gehen wir."]),
        ("de", "Er kam am 5. Dann ging er.", ["Er kam am 5. ", "Dann ging er."]),
        ("de", "Das ist der Vater. Dann kam er.", ["Das ist der Vater. ", "Dann kam er."]),
        ("de", "Sie sah den Korb. Dann ging sie.", ["Sie sah den Korb. ", "Dann ging sie."]),
        (
            "de",
            "Äpfel, Birnen usw. Dann kam der Winter.",
            ["Äpfel, Birnen usw. ", "Dann kam der Winter."],
        ),
        (
            "de",
            "Der Schaden beträgt 5 Mio. Die Versicherung zahlt.",
            ["Der Schaden beträgt 5 Mio. ", "Die Versicherung zahlt."],
        ),
        ("de", "Das war im Jahr 2005. Heute nicht.", ["Das war im Jahr 2005. ", "Heute nicht."]),
        (
            "en",
            "He moved to the U.S. The weather was better.",
            ["He moved to the U.S. ", "The weather was better."],
        ),
        ("en", "We chose Plan B. The rest failed.", ["We chose Plan B. ", "The rest failed."]),
        ("en", "I said no. No. I won't go.", ["I said no. ", "No. ", "I won't go."]),
        (
            "en",
            "He lives on Main St. The house is red.",
            ["He lives on Main St. ", "The house is red."],
        ),
        (
            "en",
            "Apples, pears etc. Then winter came.",
            ["Apples, pears etc. ", "Then winter came."],
        ),
        # a line break after an abbreviation is always a boundary
        ("en", "Ask Dr.\nSmith came.", ["Ask Dr.\n", "Smith came."]),
        ("de", "am 3.\nOktober", ["am 3.\n", "Oktober"]),
    ],
)
def test_true_breaks_are_kept(lang: str, text: str, expected: list[str]) -> None:
    assert sentences(text, lang) == expected


@pytest.mark.parametrize("lang", ["en", "de", None])
def test_enumerator_label_joins_following_sentence(lang: str | None) -> None:
    text = "1. Einleitung folgt hier. 2. Methoden folgen. IV. Schluss."
    assert sentences(text, lang) == [
        "1. Einleitung folgt hier. ",
        "2. Methoden folgen. ",
        "IV. Schluss.",
    ]
    assert len(raw_sentence_boundaries(text, lang)) == 7


def test_other_language_gets_only_neutral_rules() -> None:
    # Initials are language-neutral; German ordinals are not applied to French.
    assert sentences("M. Dupont est là. Il part.", "fr") == ["M. Dupont est là. ", "Il part."]
    assert len(sentences("Le 3. Oktober. Fin.", "fr")) == 3


def test_ss_standard_is_not_used() -> None:
    # ICU's de@ss=standard would swallow this true boundary.
    text = "Er sprach mit der Vater. Dann ging er."
    assert len(split_sentences(text, "de")) == 2


@pytest.mark.parametrize(
    ("lang", "text", "expected", "icu_oversplits"),
    [
        ("en", 'A big "Welcome!" to Darin. Yes.', ['A big "Welcome!" to Darin. ', "Yes."], True),
        ("de", "„Wirklich?“ fragte sie. Ja.", ["„Wirklich?“ fragte sie. ", "Ja."], True),
        ("de", "Toll! und dann? nichts. Gut.", ["Toll! und dann? nichts. ", "Gut."], True),
        # English sentences do start in lower case in informal text: keep.
        (
            "en",
            "where did you grow up? india? ok.",
            ["where did you grow up? ", "india? ", "ok."],
            False,
        ),
    ],
)
def test_terminator_before_lower_case(
    lang: str, text: str, expected: list[str], icu_oversplits: bool
) -> None:
    assert sentences(text, lang) == expected
    raw_count = len(raw_sentence_boundaries(text, lang)) - 1
    assert (raw_count > len(expected)) == icu_oversplits


def test_glued_terminator_is_not_a_break() -> None:
    text = "Go to google.com/search?q=x&y=1 now. Then stop."
    assert len(raw_sentence_boundaries(text, "en")) == 4  # ICU breaks after "?"
    assert sentences(text, "en") == ["Go to google.com/search?q=x&y=1 now. ", "Then stop."]


@pytest.mark.parametrize(
    "text",
    ["plain ascii text.", "a\r\nb\r\n\r\n\rc\n", "\r\n", "x\r", "\nend\r\n", "tab\there\x00"],
)
def test_grapheme_ascii_fast_path_matches_icu(text: str) -> None:
    assert grapheme_boundaries(text) == icu_boundaries("character", "", text)


def test_suppression_rules_only_remove_icu_boundaries() -> None:
    text = "Am 3. Oktober kam Dr. Müller, z. B. mit Mr. J. R. R. Tolkien. Ende."
    ours = {a for a, _ in split_sentences(text, None)}
    assert ours < set(raw_sentence_boundaries(text, None))


# --- sentences: added boundaries (rules 10-12) ----------------------------
# ICU reports none of these boundaries; each case checks that, so the tests
# fail if the rule stops working.

ADDED_CASES = [
    # rule 10: "…" before a capitalised word ends the sentence ("..." does in ICU)
    ("de", "Es war vorbei… Dann ging er.", ["Es war vorbei… ", "Dann ging er."]),
    ("en", "We waited… Nobody came.", ["We waited… ", "Nobody came."]),
    ("de", "Er sagte: „Mal sehen…“ Dann ging er.", ["Er sagte: „Mal sehen…“ ", "Dann ging er."]),
    ("und", "We waited… „Dann“ kam er.", ["We waited… ", "„Dann“ kam er."]),
    # rule 11: emoticon before a capitalised word
    (
        "de",
        "Kann ich nur weiterempfehlen ;-) So eben war ich wieder da.",
        ["Kann ich nur weiterempfehlen ;-) ", "So eben war ich wieder da."],
    ),
    ("de", "Super! :-) Wir kommen wieder.", ["Super! :-) ", "Wir kommen wieder."]),
    ("en", "Thanks for the help :) Now it works.", ["Thanks for the help :) ", "Now it works."]),
    ("en", "That was great xD Next time again.", ["That was great xD ", "Next time again."]),
    # rule 12 (English): lower-case sentence start after a full stop
    ("en", "i loved it. why do you ask?", ["i loved it. ", "why do you ask?"]),
    ("en", "don't tell val. the weekend is mine.", ["don't tell val. ", "the weekend is mine."]),
    (
        "en",
        'Like you said "the kids egg him on". maybe not.',
        ['Like you said "the kids egg him on". ', "maybe not."],
    ),
    ("en", "Call Kathy (3-3264). you know her.", ["Call Kathy (3-3264). ", "you know her."]),
    (
        "en",
        "For today, Nov 5th. preferably in San Jose.",
        ["For today, Nov 5th. ", "preferably in San Jose."],
    ),
]


@pytest.mark.parametrize(("lang", "text", "expected"), ADDED_CASES)
def test_added_boundaries(lang: str, text: str, expected: list[str]) -> None:
    assert sentences(text, lang) == expected
    assert len(raw_sentence_boundaries(text, lang)) - 1 < len(expected)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        # rule 10: not before a lower-case word; not after an omission mark "[…]"
        ("de", "Ich dachte… naja, das war es dann."),
        ("en", "He paused… and then left."),
        ("de", "Er sagte, dass […] Kinder im Park spielen."),
        ("en", "The report states that (…) Members must vote."),
        # rule 11: not before a lower-case word; not without a space; not a label
        ("en", "Is it :-) really that good?"),
        ("de", "Das ist toll:-)Wir kommen."),
        ("en", "See http://example.com/x :/ok fine."),
        # rule 12: abbreviations, initials, inner dots, dots, closers after the stop
        ("en", "I like apples, pears etc. and more."),
        ("en", "He works for Enron Corp. in Houston."),
        ("en", "It costs approx. five dollars."),
        ("en", "Smith et al. found it first."),
        ("en", "It weighs 5 lbs. and costs more."),
        ("en", "He lives in Boston, Mass. and works there."),
        ("en", "The U.S. military left early."),
        ("en", "We start at 9 a.m. and stop late."),
        ("en", "Mr. smith and Dr. jones came."),
        ("en", "See Fig. ten and vol. two."),
        ("en", "Choose plan b. then the rest."),
        ("en", "Wait.. what happened there?"),
        ("en", '"Go home." he said quietly.'),
        ("en", "(See above.) and then it ends."),
        ("en", "It cost 5. then nothing."),
        # ... also when a bracket closes around the abbreviation
        ("en", "Contact (Smith et al). we know."),
        ("en", "Bring the tools (saws, drills etc). then start."),
        # rule 12 is English only: German and unknown-language text keep ICU's
        ("de", "Das kostet ca. fünf Euro. und tägl. geöffnet."),
        ("und", "i loved it. why do you ask?"),
        (None, "das war gut. nicht schlecht."),
    ],
)
def test_no_added_boundary(lang: str | None, text: str) -> None:
    assert sentences(text, lang) == [text]
    assert raw_sentence_boundaries(text, lang) == [0, len(text)]


def test_added_boundary_sits_after_whitespace() -> None:
    text = "Es war vorbei…\u00a0 Dann :-)\tWir. i loved it.\n\nwhy"
    raw = set(raw_sentence_boundaries(text, "en"))
    added = [a for a, _ in split_sentences(text, "en") if a not in raw]
    assert added
    for a in added:
        assert text[a - 1].isspace() and text[a].isalpha()


def test_thread_local_iterators_give_same_results() -> None:
    texts = [f"Satz {i}. Am {i % 28 + 1}. Mai kam Dr. Müller 😀. Ende {i}!" for i in range(200)]
    expected = [split_sentences(t, "de") for t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda t: split_sentences(t, "de"), texts))
    assert got == expected


def test_lone_surrogate_with_astral_chars_offsets() -> None:
    text = "😀 Eins\ud800. Zwei 👍🏽. Drei."
    spans = split_sentences(text, "de")
    assert [text[a:b] for a, b in spans] == ["😀 Eins\ud800. ", "Zwei 👍🏽. ", "Drei."]


def test_word_boundary_never_inside_spacing_mark_cluster() -> None:
    # ICU's word iterator alone breaks between ":" and THAI SARA AM (a
    # SpacingMark that the grapheme rules attach to the ":"); found by hypothesis.
    text = ":\u0e33"
    assert grapheme_boundaries(text) == [0, 2]
    assert 1 in icu_boundaries("word", "en", text)
    assert word_boundaries(text, "en") == [0, 2]


def test_sentence_boundary_never_inside_cluster() -> None:
    text = "Eins. \u0e33 Zwei."
    graphemes = set(grapheme_boundaries(text))
    for lang in ("en", "de", None):
        assert {a for a, _ in split_sentences(text, lang)} <= graphemes


def test_runs_of_blank_lines_cost_linear_work() -> None:
    """Every ICU boundary in a run of blank lines walked back over the whole run
    (3,000 lines: ~9 M str.isspace calls, 2 s; a 1 MB file of them: hours). Counted
    with the profiler, so the test measures work, not time."""
    import cProfile
    import pstats

    from chunkwise import split_sentences

    lines = 3000
    text = "Erster Satz.\n" + " \n" * lines + "Zweiter Satz."
    profiler = cProfile.Profile()
    spans = profiler.runcall(split_sentences, text, "de")
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    isspace_calls = sum(
        calls[1] for (_file, _line, name), calls in stats.items() if "isspace" in name
    )
    assert isspace_calls < 20 * lines, isspace_calls
    assert text[spans[0][0] : spans[0][1]] == "Erster Satz.\n"
    assert text[spans[-1][0] : spans[-1][1]] == "Zweiter Satz."


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("Dr.\n \n \n        Müller kam.", ["Dr.\n", " \n", " \n", "        Müller kam."]),
        (
            "Wer kommt?  \n\n   \n  ja, er kommt.",
            ["Wer kommt?  \n", "\n", "   \n", "  ja, er kommt."],
        ),
    ],
)
def test_boundaries_after_whitespace_runs_with_line_breaks_are_kept(
    text: str, pieces: list[str]
) -> None:
    from chunkwise import split_sentences

    assert [text[s:e] for s, e in split_sentences(text, "de")] == pieces
