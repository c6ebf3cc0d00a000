"""The language tables of the sentence corrections: abbreviations by class, sentence
starters, German months and ordinal triggers, words usually followed by more of the
sentence (how they are used: `chunkwise.text.sentence_rules`).

An abbreviation's class says when a dot after it ends a sentence: ``strong`` never,
``number`` unless a digit follows, ``weak`` only before a sentence starter.
"""

from __future__ import annotations

# Rule 12 vetoes (chunkwise.text.sentence_rules): abbreviations usually followed by
# more of the sentence.
# Compared in lower case ...
CONTINUED_EN = frozenset(
    """etc al approx est incl excl esp misc dept depts govt univ assn assoc inc corp co
    cos ltd llc plc bros ave blvd rd hr hrs min mins yr yrs mo mos wk wks lb lbs oz ft
    sq pt pts qt gal mi ref ed eds ibid cf bldg mgr mgmt dist div intl natl jr sr vs
    ca nr abt""".split()
)
# ... and case-sensitively (US state abbreviations that are also words).
CONTINUED_EN_CASED = frozenset(
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
MONTHS_DE = frozenset(
    """Januar Jänner Februar Feber März April Mai Juni Juli August September Oktober
    November Dezember Jan. Feb. Febr. Mär. Mrz. Apr. Jun. Jul. Aug. Sep. Sept. Okt.
    Nov. Dez.""".split()
)
ORDINAL_TRIGGERS_DE = frozenset(
    """am vom zum bis im ab seit beim zur um an auf in nach vor unter über für mit bis
    der die das den dem des ein eine einem einen einer eines jeden jedem jeder jedes
    sein seine seinem seinen seiner ihr ihre ihrem ihren ihrer diesem dieser dieses
    diesen unser unsere unserem unseren unserer zum zur vom beim ins""".split()
)

AbbreviationClass = str  # "strong" | "number" | "weak"


class Rules:
    """Abbreviation tables of one language (or the union for und)."""

    def __init__(
        self,
        single: dict[str, AbbreviationClass],
        multi: list[tuple[tuple[str, ...], AbbreviationClass]],
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
        self.multi: dict[str, list[tuple[tuple[str, ...], tuple[str, ...], AbbreviationClass]]] = {}
        for parts, cls in multi:
            for k in range(1, len(parts) + 1):
                self.multi.setdefault(parts[k - 1], []).append((parts[:k], parts[k:], cls))


def _words(spec: str) -> list[str]:
    return spec.split()


_SINGLE_EN: dict[str, AbbreviationClass] = {
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
_MULTI_EN: list[tuple[tuple[str, ...], AbbreviationClass]] = [
    (("e.", "g."), "strong"),
    (("i.", "e."), "strong"),
]

_SINGLE_DE: dict[str, AbbreviationClass] = {
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
_MULTI_DE: list[tuple[tuple[str, ...], AbbreviationClass]] = [
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


def _build_rules(code: str) -> Rules:
    if code == "en":
        return Rules(dict(_SINGLE_EN), _MULTI_EN, _STARTERS_EN, ordinals=False, lower_start=True)
    if code == "de":
        return Rules(
            dict(_SINGLE_DE), _MULTI_DE, _STARTERS_DE, ordinals=True, lower_after_stop=True
        )
    if code == "":
        single: dict[str, AbbreviationClass] = dict(_SINGLE_EN)
        for key, cls in _SINGLE_DE.items():
            # On a conflict keep the more cautious class (weak < number < strong).
            if key not in single or cls == "weak" or (cls == "number" and single[key] == "strong"):
                single[key] = cls
        return Rules(single, _MULTI_EN + _MULTI_DE, _STARTERS_EN | _STARTERS_DE, ordinals=True)
    return Rules({}, [], frozenset(), ordinals=False)


_RULES_CACHE: dict[str, Rules] = {}


def rules_for(code: str) -> Rules:
    rules = _RULES_CACHE.get(code)
    if rules is None:
        rules = _RULES_CACHE[code] = _build_rules(code)
    return rules
