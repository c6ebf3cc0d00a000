# ruff: noqa: E501  (document text and question templates are data)
"""Generate the retrieval evaluation set: documents, corpus manifest and questions.

    .venv/bin/python bench/eval/make_eval_set.py

Modelled on the post "RAG retrieval accuracy depends on chunking", in English
and German, three document types per language:

  table            one-page PDF: plans and prices + features by plan (two tables)
  multipage_table  three-page PDF: product catalogue by region (84 rows, the
                   header row printed on page 1 only, like that post's parser case)
  prose            a travel and expense policy (Markdown)

The pricing PDF and the policy have a second revision (r2) that changes some
values; revision questions ask for a changed value and name the superseded r1
text that must never be cited.

Everything is generated from the structured data below; the evidence strings
are located in the *real* extraction output (`chunkwise.extract.extract`), so a
question whose evidence the extractor does not reproduce fails here, loudly.
Output is deterministic (reportlab invariant mode, seeded choices).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from sampledocs import (
    BODY,
    CAPTION,
    H1,
    grid_style,
    grid_table,
    pdf_doc,
    running_header,
)

from chunkwise.extract import extract

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"

GRID = grid_style(8)
R1_TIME = "2026-01-05T09:00:00Z"
R2_TIME = "2026-03-02T09:00:00Z"


def row_line(cells: list[str]) -> str:
    """A table row as the extractor renders it (GFM)."""
    return "| " + " | ".join(cells) + " |"


# =============================================================================== pricing

PLANS = {
    "en": ["Free", "Starter", "Team", "Business", "Enterprise", "Education"],
    "de": ["Kostenlos", "Starter", "Team", "Business", "Enterprise", "Bildung"],
}
PLAN_HEADER = {
    "en": [
        "Plan",
        "Monthly price",
        "Annual price",
        "Users included",
        "Storage",
        "Support response",
    ],
    "de": [
        "Tarif",
        "Monatspreis",
        "Jahrespreis",
        "Enthaltene Nutzer",
        "Speicher",
        "Support-Reaktionszeit",
    ],
}
MONTHLY = [0, 6, 12, 25, 45, 4]
USERS = [1, 5, 25, 100, 1000, 300]
STORAGE_EN = ["5 GB", "50 GB", "100 GB", "1 TB", "Unlimited", "500 GB"]
STORAGE_DE = ["5 GB", "50 GB", "100 GB", "1 TB", "Unbegrenzt", "500 GB"]
SUPPORT_H = [None, 48, 24, 8, 1, 72]

FEATURES = {
    "en": [
        "Single sign-on",
        "Audit log",
        "API access",
        "Custom domains",
        "Two-factor enforcement",
        "EU data residency",
        "Priority support",
        "Sandbox workspaces",
        "Backup retention",
        "Uptime SLA",
    ],
    "de": [
        "Single Sign-on",
        "Audit-Protokoll",
        "API-Zugang",
        "Eigene Domains",
        "Pflicht zur Zwei-Faktor-Anmeldung",
        "Datenhaltung in der EU",
        "Bevorzugter Support",
        "Sandbox-Arbeitsbereiche",
        "Aufbewahrung der Backups",
        "Verfügbarkeitszusage",
    ],
}
# feature -> value per plan (index into PLANS); booleans become Yes/No
FEATURE_VALUES: list[list[object]] = [
    [False, False, True, True, True, True],
    [False, False, False, False, True, False],
    [False, True, True, True, True, True],
    [False, False, True, True, True, False],
    [False, False, False, True, True, True],
    [False, True, True, True, True, True],
    [False, False, False, True, True, False],
    [False, False, False, True, True, True],
    [
        ("7", "days"),
        ("14", "days"),
        ("30", "days"),
        ("90", "days"),
        ("365", "days"),
        ("30", "days"),
    ],
    [None, ("99.0", "%"), ("99.5", "%"), ("99.9", "%"), ("99.95", "%"), ("99.5", "%")],
]

# r2 changes: (table, row index, column index, new value builder)
R2_MONTHLY = {2: 14, 4: 49}  # Team 12 -> 14, Enterprise 45 -> 49 (annual follows)
R2_STORAGE = {1: 1}  # Starter 50 GB -> 80 GB
R2_SUPPORT = {3: 4}  # Business 8 h -> 4 h
R2_FEATURES = {(1, 3): True, (8, 2): ("60", "days")}  # Business gets audit log; Team 60 days


def _money(lang: str, amount: int) -> str:
    return f"{amount} USD" if lang == "en" else f"{amount} €"


def _support(lang: str, hours: int | None) -> str:
    if hours is None:
        return "Community forum" if lang == "en" else "Community-Forum"
    if lang == "en":
        return f"{hours} hour" if hours == 1 else f"{hours} hours"
    return f"{hours} Stunde" if hours == 1 else f"{hours} Stunden"


def _feature_value(lang: str, v: object) -> str:
    if v is None:
        return "none" if lang == "en" else "keine"
    if v is True:
        return "Yes" if lang == "en" else "Ja"
    if v is False:
        return "No" if lang == "en" else "Nein"
    num, unit = v  # type: ignore[misc]
    if lang == "de":
        num = num.replace(".", ",")
        unit = {"days": "Tage", "%": "%"}[unit]
    return f"{num} {unit}" if unit != "%" else f"{num} %"


def pricing_tables(lang: str, rev: str) -> tuple[list[list[str]], list[list[str]]]:
    plans = PLANS[lang]
    storage = list(STORAGE_EN if lang == "en" else STORAGE_DE)
    monthly = list(MONTHLY)
    support = list(SUPPORT_H)
    values = [list(r) for r in FEATURE_VALUES]
    if rev == "r2":
        for i, m in R2_MONTHLY.items():
            monthly[i] = m
        for i in R2_STORAGE:
            storage[i] = "80 GB"
        for i, h in R2_SUPPORT.items():
            support[i] = h
        for (f, p), v in R2_FEATURES.items():
            values[f][p] = v
    t1 = []
    for i, plan in enumerate(plans):
        annual = monthly[i] * 10  # two months free
        t1.append(
            [
                plan,
                _money(lang, monthly[i]),
                _money(lang, annual),
                str(USERS[i]),
                storage[i],
                _support(lang, support[i]),
            ]
        )
    t2 = [
        [feat] + [_feature_value(lang, v) for v in values[fi]]
        for fi, feat in enumerate(FEATURES[lang])
    ]
    return t1, t2


PRICING_TEXT = {
    "en": {
        "title": "Acme Cloud: Plans, Prices and Features",
        "intro": "Acme Cloud is sold in six plans. Prices are per user, taxes are not included. "
        "The annual price covers twelve months and is charged in advance.",
        "cap1": "Table 1: Plans and prices",
        "cap2": "Table 2: Features by plan",
        "outro": "Contact sales for volume discounts above 500 users.",
        "running": "Acme Cloud price list",
    },
    "de": {
        "title": "Acme Cloud: Tarife, Preise und Funktionen",
        "intro": "Acme Cloud gibt es in sechs Tarifen. Die Preise gelten pro Nutzer, zzgl. MwSt. "
        "Der Jahrespreis deckt zwölf Monate ab und wird im Voraus berechnet.",
        "cap1": "Tabelle 1: Tarife und Preise",
        "cap2": "Tabelle 2: Funktionen nach Tarif",
        "outro": "Für Mengenrabatte ab 500 Nutzern wenden Sie sich an den Vertrieb.",
        "running": "Acme Cloud Preisliste",
    },
}


def _doc(path: Path) -> SimpleDocTemplate:
    return pdf_doc(path, margin_cm=1.5, author="chunkwise eval")


def _running(text: str, page_fmt: str):  # type: ignore[no-untyped-def]
    return running_header(text, page_fmt, margin_cm=1.5)


def _table(header: list[str], rows: list[list[str]], repeat: int = 1) -> Table:
    return grid_table(header, rows, GRID, repeat)


def make_pricing_pdf(lang: str, rev: str, path: Path) -> None:
    p = PRICING_TEXT[lang]
    t1, t2 = pricing_tables(lang, rev)
    header2 = ["Feature" if lang == "en" else "Funktion", *PLANS[lang]]
    story = [
        Paragraph(p["title"], H1),
        Paragraph(p["intro"], BODY),
        Spacer(1, 8),
        Paragraph(p["cap1"], CAPTION),
        _table(PLAN_HEADER[lang], t1),
        Spacer(1, 12),
        Paragraph(p["cap2"], CAPTION),
        _table(header2, t2),
        Spacer(1, 12),
        Paragraph(p["outro"], BODY),
    ]
    run = _running(p["running"], "{n}")
    _doc(path).build(story, onFirstPage=run, onLaterPages=run)


# =============================================================================== catalogue

PRODUCTS = {
    "en": [
        "Storm Shell Jacket",
        "Ridge Trail Shoe",
        "Glacier Down Parka",
        "Alpine Merino Shirt",
        "Summit Backpack 40 L",
        "Carbon Trekking Poles",
        "Canyon Softshell Pants",
        "Polar Fleece Hoodie",
        "Steel Vacuum Flask",
        "Beacon Headlamp 600 lm",
        "Compact Gas Stove",
        "Arctic Sleeping Bag",
    ],
    "de": [
        "Sturmjacke Leicht",
        "Bergpfad-Schuh",
        "Gletscher-Daunenparka",
        "Alpin-Merinoshirt",
        "Gipfelrucksack 40 l",
        "Carbon-Trekkingstöcke",
        "Canyon-Softshellhose",
        "Polar-Fleecejacke",
        "Edelstahl-Thermoskanne",
        "Stirnlampe Leuchtfeuer 600 lm",
        "Kompakt-Gaskocher",
        "Arktis-Schlafsack",
    ],
}
REGIONS = {
    "en": ["Northeast", "Midwest", "Southeast", "Southwest", "Pacific", "Mountain", "Alaska"],
    "de": ["Nordsee", "Ostsee", "Rheinland", "Franken", "Schwaben", "Allgäu", "Lausitz"],
}
CATALOG_TEXT = {
    "en": {
        "title": "Outdoor Catalogue 2026",
        "intro": "Regional list prices, stock levels and delivery times of our outdoor range.",
        "cap": "Table 3: Prices, stock and delivery by region",
        "header": ["Product", "Region", "List price (USD)", "Units in stock", "Delivery time"],
        "after": "Prices are subject to change without notice.",
        "running": "Acme Outdoor - Catalogue 2026",
        "page": "Page {n}",
    },
    "de": {
        "title": "Outdoor-Katalog 2026",
        "intro": "Regionale Listenpreise, Lagerbestände und Lieferzeiten unseres Outdoor-Sortiments.",
        "cap": "Tabelle 3: Preise, Bestand und Lieferzeit nach Region",
        "header": ["Produkt", "Region", "Listenpreis (EUR)", "Lagerbestand", "Lieferzeit"],
        "after": "Preisänderungen vorbehalten.",
        "running": "Acme Outdoor - Katalog 2026",
        "page": "Seite {n}",
    },
}


def catalog_rows(lang: str) -> list[list[str]]:
    rows = []
    for i, product in enumerate(PRODUCTS[lang]):
        for j, region in enumerate(REGIONS[lang]):
            price = 39 + (i * 41 + j * 13) % 260
            stock = (i * 137 + j * 59 + 17) % 950
            days = 1 + (i * 3 + j) % 11
            if lang == "en":
                rows.append(
                    [
                        product,
                        region,
                        f"{price}.90",
                        str(stock),
                        f"{days} days" if days > 1 else "1 day",
                    ]
                )
            else:
                rows.append(
                    [
                        product,
                        region,
                        f"{price},90",
                        str(stock),
                        f"{days} Tage" if days > 1 else "1 Tag",
                    ]
                )
    return rows


def make_catalog_pdf(lang: str, path: Path) -> None:
    c = CATALOG_TEXT[lang]
    story = [
        Paragraph(c["title"], H1),
        Paragraph(c["intro"], BODY),
        Spacer(1, 8),
        Paragraph(c["cap"], CAPTION),
        _table(c["header"], catalog_rows(lang), repeat=0),
        Spacer(1, 12),
        Paragraph(c["after"], BODY),
    ]
    run = _running(c["running"], c["page"])
    _doc(path).build(story, onFirstPage=run, onLaterPages=run)


# =============================================================================== policy

CITIES = {
    "en": ["Berlin", "Munich", "Hamburg", "Vienna", "Zurich", "Paris", "London", "Madrid"],
    "de": ["Berlin", "München", "Hamburg", "Wien", "Zürich", "Paris", "London", "Madrid"],
}
ALLOWANCE = [28, 32, 30, 31, 45, 40, 44, 29]
HOTEL = [120, 150, 130, 125, 210, 180, 220, 115]
R2_ALLOWANCE = {1: 36, 6: 48}  # Munich 32 -> 36, London 44 -> 48

RECORDS = {
    "en": [
        ("Invoices", "the accounting team"),
        ("Payroll records", "the HR service centre"),
        ("Travel expense reports", "the finance office"),
        ("Signed contracts", "the legal department"),
        ("Job applications of rejected candidates", "the recruiting team"),
        ("Visitor logs", "the facility management"),
        ("CCTV recordings", "the security office"),
        ("Customer support tickets", "the support operations team"),
    ],
    "de": [
        ("Rechnungen", "die Buchhaltung"),
        ("Lohnunterlagen", "das HR-Servicecenter"),
        ("Reisekostenabrechnungen", "die Finanzabteilung"),
        ("Unterschriebene Verträge", "die Rechtsabteilung"),
        ("Bewerbungen abgelehnter Kandidaten", "das Recruiting-Team"),
        ("Besucherlisten", "das Facility-Management"),
        ("Videoaufzeichnungen", "der Sicherheitsdienst"),
        ("Support-Tickets von Kunden", "das Support-Operations-Team"),
    ],
}
RETENTION = [
    (10, "years"),
    (6, "years"),
    (8, "years"),
    (12, "years"),
    (6, "months"),
    (90, "days"),
    (72, "hours"),
    (3, "years"),
]
R2_RETENTION = {
    0: (8, "years"),
    5: (30, "days"),
}  # invoices 10 -> 8 years; visitor logs 90 -> 30 days

UNITS_DE = {"years": "Jahre", "months": "Monate", "days": "Tage", "hours": "Stunden"}

APPROVALS = {
    "en": [
        ("Expenses up to {a} EUR", "your team lead"),
        ("Expenses up to {a} EUR", "your department head"),
        ("Expenses up to {a} EUR", "the finance director"),
        ("Any single hotel night above {a} EUR", "the travel office"),
        ("Client entertainment above {a} EUR per guest", "the compliance officer"),
        ("Software purchases above {a} EUR", "the IT security board"),
    ],
    "de": [
        ("Ausgaben bis {a} EUR", "Ihre Teamleitung"),
        ("Ausgaben bis {a} EUR", "Ihre Abteilungsleitung"),
        ("Ausgaben bis {a} EUR", "die Finanzdirektorin"),
        ("Jede einzelne Hotelnacht über {a} EUR", "das Reisebüro"),
        ("Kundenbewirtungen über {a} EUR pro Gast", "die Compliance-Beauftragte"),
        ("Softwarekäufe über {a} EUR", "das IT-Sicherheitsgremium"),
    ],
}
APPROVAL_AMOUNTS = [500, 2500, 10000, 250, 80, 1000]
R2_APPROVAL = {4: 60}

# (condition sentence, action sentence, question) - the answer needs both sentences
RULES = {
    "en": [
        (
            "A laptop or phone may get lost or stolen during a trip.",
            "In that case, report it to the IT service desk within {h} hours so that the device can be locked remotely.",
            "What must I do if my laptop is stolen on a business trip, and by when?",
        ),
        (
            "Sometimes a flight is cancelled and no rebooking is possible on the same day.",
            "Then you may book a hotel near the airport without prior approval.",
            "Can I book an airport hotel without approval when my flight is cancelled?",
        ),
        (
            "Receipts in a foreign currency are common on international trips.",
            "Convert them with the exchange rate of the day of payment and attach the card statement.",
            "How are receipts in a foreign currency converted for the expense report?",
        ),
        (
            "Employees may use their private car for a trip.",
            "The company then reimburses 0.30 EUR per kilometre, but no parking fines.",
            "How much is reimbursed per kilometre when I use my private car?",
        ),
        (
            "A trip may last longer than 14 consecutive days.",
            "For such long trips the daily allowance is reduced by 20 percent from day 15.",
            "What happens to the daily allowance on trips longer than two weeks?",
        ),
        (
            "Original receipts sometimes get lost.",
            "A signed statement of loss replaces them for amounts below 50 EUR.",
            "What replaces a lost receipt for small amounts?",
        ),
        (
            "Guests from public authorities may be invited to business meals.",
            "Such invitations must be reported to the compliance officer in advance.",
            "What applies when I invite officials from a public authority to a business meal?",
        ),
        (
            "Train journeys over four hours are booked in first class.",
            "Shorter train journeys are booked in second class.",
            "Which class is booked for a train journey of five hours?",
        ),
        (
            "An employee may fall ill during a business trip.",
            "The employee informs the HR service centre on the first day of illness and keeps all medical receipts.",
            "Whom do I inform if I fall ill on a business trip?",
        ),
        (
            "Expense reports are due at the end of each month.",
            "Reports submitted more than three months late are no longer reimbursed.",
            "What happens to expense reports that are submitted very late?",
        ),
    ],
    "de": [
        (
            "Auf Dienstreisen kann ein Laptop oder Telefon verloren gehen oder gestohlen werden.",
            "In diesem Fall melden Sie es innerhalb von {h} Stunden dem IT-Servicedesk, damit das Gerät aus der Ferne gesperrt werden kann.",
            "Was muss ich tun, wenn mein Laptop auf einer Dienstreise gestohlen wird, und bis wann?",
        ),
        (
            "Manchmal wird ein Flug gestrichen und eine Umbuchung am selben Tag ist nicht möglich.",
            "Dann dürfen Sie ohne vorherige Genehmigung ein Hotel in Flughafennähe buchen.",
            "Darf ich ohne Genehmigung ein Flughafenhotel buchen, wenn mein Flug gestrichen wird?",
        ),
        (
            "Belege in Fremdwährung, z. B. aus den USA, sind auf Auslandsreisen häufig.",
            "Rechnen Sie sie mit dem Kurs des Zahlungstags um und fügen Sie den Kartenauszug bei.",
            "Wie werden Belege in Fremdwährung für die Reisekostenabrechnung umgerechnet?",
        ),
        (
            "Beschäftigte dürfen für eine Dienstreise ihren Privatwagen nutzen.",
            "Das Unternehmen erstattet dann 0,30 EUR pro Kilometer, aber keine Strafzettel.",
            "Wie viel wird pro Kilometer erstattet, wenn ich meinen Privatwagen nutze?",
        ),
        (
            "Eine Dienstreise kann länger als 14 aufeinanderfolgende Tage dauern.",
            "Bei solchen Langzeitreisen sinkt das Tagegeld ab dem 15. Tag um 20 Prozent.",
            "Was passiert mit dem Tagegeld bei Reisen, die länger als zwei Wochen dauern?",
        ),
        (
            "Originalbelege gehen manchmal verloren.",
            "Bei Beträgen unter 50 EUR ersetzt eine unterschriebene Verlusterklärung den Beleg.",
            "Was ersetzt einen verlorenen Beleg bei kleinen Beträgen?",
        ),
        (
            "Gäste von Behörden dürfen zu Geschäftsessen eingeladen werden.",
            "Solche Einladungen müssen vorab der Compliance-Beauftragten gemeldet werden.",
            "Was gilt, wenn ich Behördenvertreter zu einem Geschäftsessen einlade?",
        ),
        (
            "Bahnfahrten über vier Stunden werden in der 1. Klasse gebucht.",
            "Kürzere Bahnfahrten werden in der 2. Klasse gebucht.",
            "In welcher Klasse wird eine Bahnfahrt von fünf Stunden gebucht?",
        ),
        (
            "Beschäftigte können während einer Dienstreise erkranken.",
            "Sie informieren das HR-Servicecenter am ersten Krankheitstag und bewahren alle Arztbelege auf.",
            "Wen informiere ich, wenn ich auf einer Dienstreise krank werde?",
        ),
        (
            "Reisekostenabrechnungen sind jeweils zum Monatsende fällig.",
            "Abrechnungen, die mehr als drei Monate zu spät eingereicht werden, erstattet das Unternehmen nicht mehr.",
            "Was passiert mit Reisekostenabrechnungen, die sehr spät eingereicht werden?",
        ),
    ],
}
RULE_HOURS = 24
R2_RULE_HOURS = 12


def _retention_phrase(lang: str, n: int, unit: str) -> str:
    return f"{n} {unit}" if lang == "en" else f"{n} {UNITS_DE[unit]}"


def policy_parts(lang: str, rev: str) -> dict[str, list]:  # type: ignore[type-arg]
    allowance = list(ALLOWANCE)
    retention = list(RETENTION)
    approvals = list(APPROVAL_AMOUNTS)
    hours = RULE_HOURS
    if rev == "r2":
        for i, v in R2_ALLOWANCE.items():
            allowance[i] = v
        for i, v in R2_RETENTION.items():
            retention[i] = v
        for i, v in R2_APPROVAL.items():
            approvals[i] = v
        hours = R2_RULE_HOURS
    city_sent = []
    for i, city in enumerate(CITIES[lang]):
        if lang == "en":
            city_sent.append(
                f"For business trips to {city}, the daily allowance is {allowance[i]} EUR "
                f"and hotel costs are reimbursed up to {HOTEL[i]} EUR per night."
            )
        else:
            city_sent.append(
                f"Für Dienstreisen nach {city} beträgt das Tagegeld {allowance[i]} EUR "
                f"und Hotelkosten werden bis {HOTEL[i]} EUR pro Nacht erstattet."
            )
    ret = []
    for i, (rec, owner) in enumerate(RECORDS[lang]):
        n, unit = retention[i]
        if lang == "en":
            ret.append(
                (
                    f"{rec} are retained for {_retention_phrase(lang, n, unit)}.",
                    f"After this period {owner} deletes them within one month.",
                )
            )
        else:
            ret.append(
                (
                    f"{rec} werden {_retention_phrase(lang, n, unit)} aufbewahrt.",
                    f"Nach Ablauf dieser Frist löscht {owner} sie innerhalb eines Monats.",
                )
            )
    appr = []
    for i, (what, who) in enumerate(APPROVALS[lang]):
        w = what.format(a=f"{approvals[i]:,}".replace(",", "." if lang == "de" else ","))
        appr.append(
            f"{w} must be approved by {who}."
            if lang == "en"
            else f"{w} müssen von {who} genehmigt werden."
        )
    rules = [(c, a.format(h=hours), q) for c, a, q in RULES[lang]]
    return {"cities": city_sent, "retention": ret, "approvals": appr, "rules": rules}


POLICY_TEXT = {
    "en": {
        "title": "Travel and Expense Policy",
        "version": {
            "r1": "Version 1, valid from 5 January 2026.",
            "r2": "Version 2, valid from 2 March 2026. This version replaces version 1.",
        },
        "h_allow": "1 Daily allowances and hotel limits",
        "allow_intro": "Daily allowances cover meals and small expenses. Hotel limits include breakfast.",
        "h_appr": "2 Approvals",
        "appr_intro": "Every expense needs an approval before it is incurred, in the following order.",
        "h_rules": "3 Special situations",
        "h_ret": "4 Retention of records",
        "ret_intro": "Records are kept only as long as the law or this policy requires.",
    },
    "de": {
        "title": "Reise- und Spesenrichtlinie",
        "version": {
            "r1": "Fassung 1, gültig ab 5. Januar 2026.",
            "r2": "Fassung 2, gültig ab 2. März 2026. Diese Fassung ersetzt Fassung 1.",
        },
        "h_allow": "1 Tagegeld und Hotelobergrenzen",
        "allow_intro": "Das Tagegeld deckt Verpflegung und kleine Ausgaben ab. Hotelobergrenzen gelten inkl. Frühstück.",
        "h_appr": "2 Genehmigungen",
        "appr_intro": "Jede Ausgabe braucht vorab eine Genehmigung, und zwar in folgender Reihenfolge.",
        "h_rules": "3 Besondere Situationen",
        "h_ret": "4 Aufbewahrung von Unterlagen",
        "ret_intro": "Unterlagen werden nur so lange aufbewahrt, wie Gesetz oder diese Richtlinie es verlangen.",
    },
}


def policy_markdown(lang: str, rev: str) -> str:
    t = POLICY_TEXT[lang]
    p = policy_parts(lang, rev)
    out = [
        f"# {t['title']}",
        "",
        t["version"][rev],
        "",
        f"## {t['h_allow']}",
        "",
        t["allow_intro"],
        "",
    ]
    cities = p["cities"]
    for i in range(0, len(cities), 2):  # two cities per paragraph
        out += [" ".join(cities[i : i + 2]), ""]
    out += [
        f"## {t['h_appr']}",
        "",
        t["appr_intro"] + " " + " ".join(p["approvals"][:3]),
        "",
        " ".join(p["approvals"][3:]),
        "",
    ]
    out += [f"## {t['h_rules']}", ""]
    rules = p["rules"]
    for i in range(0, len(rules), 2):  # two rules (four sentences) per paragraph
        out += [" ".join(f"{c} {a}" for c, a, _ in rules[i : i + 2]), ""]
    out += [f"## {t['h_ret']}", "", t["ret_intro"], ""]
    ret = p["retention"]
    for i in range(0, len(ret), 2):
        out += [" ".join(f"{a} {b}" for a, b in ret[i : i + 2]), ""]
    return "\n".join(out)


# =============================================================================== questions


class Builder:
    def __init__(self) -> None:
        self.questions: list[dict[str, object]] = []
        self.texts: dict[tuple[str, str], str] = {}

    def locate(self, key: str, rev: str, quote: str) -> None:
        text = self.texts[(key, rev)]
        if quote not in text:
            raise SystemExit(f"evidence not in extracted text of {key}@{rev}: {quote!r}")

    def add(
        self,
        qid: str,
        lang: str,
        doc_type: str,
        question: str,
        key: str,
        quote: str,
        *,
        context: list[str] | None = None,
        tags: list[str] | None = None,
        superseded: str | None = None,
        note: str = "",
    ) -> None:
        self.locate(key, "r2" if (key, "r2") in self.texts else "r1", quote)
        q: dict[str, object] = {
            "id": qid,
            "lang": lang,
            "doc_type": doc_type,
            "question": question,
            "evidence": [{"source_key": key, "quote": quote}],
        }
        if context:
            for c in context:
                self.locate(key, "r2" if (key, "r2") in self.texts else "r1", c)
            q["required_context"] = context
        if superseded is not None:
            self.locate(key, "r1", superseded)
            if superseded in self.texts[(key, "r2")]:
                raise SystemExit(f"{qid}: superseded text still in r2: {superseded!r}")
            q["revision"] = {
                "current": "r2",
                "superseded": "r1",
                "superseded_quote": superseded,
                "note": note,
            }
        if tags:
            q["tags"] = tags
        self.questions.append(q)


PLAN_Q = {
    "en": [
        "How much does the {p} plan cost per user and month?",
        "What is the annual price per user of the {p} plan?",
        "How many users are included in the {p} plan?",
        "How much storage comes with the {p} plan?",
        "How quickly does support respond on the {p} plan?",
    ],
    "de": [
        "Was kostet der Tarif {p} pro Nutzer und Monat?",
        "Wie hoch ist der Jahrespreis pro Nutzer im Tarif {p}?",
        "Wie viele Nutzer sind im Tarif {p} enthalten?",
        "Wie viel Speicher bietet der Tarif {p}?",
        "Wie schnell reagiert der Support im Tarif {p}?",
    ],
}
FEATURE_Q = {
    "en": ["Does the {p} plan include {f}?", "What does the {p} plan offer for {f}?"],
    "de": ["Ist {f} im Tarif {p} enthalten?", "Was bietet der Tarif {p} bei {f}?"],
}
CATALOG_Q = {
    "en": [
        "What is the list price of the {p} in the {r} region?",
        "How many units of the {p} are in stock in the {r} region?",
        "What is the delivery time for the {p} in the {r} region?",
    ],
    "de": [
        "Wie hoch ist der Listenpreis für {p} in der Region {r}?",
        "Wie viele Einheiten {p} sind in der Region {r} auf Lager?",
        "Wie lang ist die Lieferzeit für {p} in der Region {r}?",
    ],
}
CITY_Q = {
    "en": [
        "What is the daily allowance for a business trip to {c}?",
        "Up to what amount are hotel costs reimbursed per night in {c}?",
    ],
    "de": [
        "Wie hoch ist das Tagegeld für eine Dienstreise nach {c}?",
        "Bis zu welchem Betrag werden Hotelkosten pro Nacht in {c} erstattet?",
    ],
}
RET_Q = {
    "en": ["How long are {r} retained?", "Who deletes {r} after the retention period, and when?"],
    "de": [
        "Wie lange werden {r} aufbewahrt?",
        "Wer löscht {r} nach Ablauf der Aufbewahrungsfrist, und wann?",
    ],
}
APPR_Q = {
    "en": ["Who must approve {w}?"],
    "de": ["Wer muss {w} genehmigen?"],
}


def pricing_questions(b: Builder, lang: str, key: str) -> None:
    h1 = row_line(PLAN_HEADER[lang])
    h2 = row_line(["Feature" if lang == "en" else "Funktion", *PLANS[lang]])
    r1_t1, r1_t2 = pricing_tables(lang, "r1")
    t1, t2 = pricing_tables(lang, "r2")
    n = 0
    for i, plan in enumerate(PLANS[lang]):
        for col in range(1, 6):
            n += 1
            changed = r1_t1[i][col] != t1[i][col]
            b.add(
                f"table-{lang}-{n:03d}",
                lang,
                "table",
                PLAN_Q[lang][col - 1].format(p=plan),
                key,
                row_line(t1[i]),
                context=[h1],
                tags=["cell", "revision"] if changed else ["cell"],
                superseded=row_line(r1_t1[i]) if changed else None,
                note=f"{PLAN_HEADER[lang][col]} of {plan}: {r1_t1[i][col]} -> {t1[i][col]}"
                if changed
                else "",
            )
    rng = random.Random(f"features-{lang}")
    pairs = [(f, p) for f in range(len(FEATURES[lang])) for p in range(len(PLANS[lang]))]
    must = [fp for fp in pairs if r1_t2[fp[0]][fp[1] + 1] != t2[fp[0]][fp[1] + 1]]
    chosen = must + sorted(rng.sample([fp for fp in pairs if fp not in must], 16 - len(must)))
    for f, p in chosen:
        n += 1
        changed = (f, p) in must
        tmpl = FEATURE_Q[lang][0 if FEATURE_VALUES[f][0] in (True, False) else 1]
        b.add(
            f"table-{lang}-{n:03d}",
            lang,
            "table",
            tmpl.format(p=PLANS[lang][p], f=FEATURES[lang][f]),
            key,
            row_line(t2[f]),
            context=[h2],
            tags=["cell", "revision"] if changed else ["cell"],
            superseded=row_line(r1_t2[f]) if changed else None,
            note=f"{FEATURES[lang][f]} / {PLANS[lang][p]}: {r1_t2[f][p + 1]} -> {t2[f][p + 1]}"
            if changed
            else "",
        )


def catalog_questions(b: Builder, lang: str, key: str) -> None:
    header = row_line(CATALOG_TEXT[lang]["header"])
    rows = catalog_rows(lang)
    rng = random.Random(f"catalog-{lang}")
    combos = sorted(rng.sample([(r, c) for r in range(len(rows)) for c in range(3)], 45))
    for n, (r, c) in enumerate(combos, start=1):
        row = rows[r]
        b.add(
            f"multipage-{lang}-{n:03d}",
            lang,
            "multipage_table",
            CATALOG_Q[lang][c].format(p=row[0], r=row[1]),
            key,
            row_line(row),
            context=[header],
            tags=["cell"],
        )


def policy_questions(b: Builder, lang: str, key: str) -> None:
    p1, p2 = policy_parts(lang, "r1"), policy_parts(lang, "r2")
    n = 0

    def add(question: str, quote: str, old: str, tags: list[str], note: str = "") -> None:
        nonlocal n
        n += 1
        changed = quote != old
        b.add(
            f"prose-{lang}-{n:03d}",
            lang,
            "prose",
            question,
            key,
            quote,
            tags=[*tags, "revision"] if changed else tags,
            superseded=old if changed else None,
            note=note if changed else "",
        )

    for i, city in enumerate(CITIES[lang]):
        for qi in range(2):
            add(
                CITY_Q[lang][qi].format(c=city),
                p2["cities"][i],
                p1["cities"][i],
                ["sentence"],
                f"daily allowance {city}: {ALLOWANCE[i]} -> {R2_ALLOWANCE.get(i, ALLOWANCE[i])} EUR",
            )
    for i, (a, bb, q) in enumerate(p2["rules"]):
        a1, b1, _ = p1["rules"][i]
        add(
            q,
            f"{a} {bb}",
            f"{a1} {b1}",
            ["sentence_split"],
            f"reporting deadline {RULE_HOURS} -> {R2_RULE_HOURS} hours",
        )
    for i, (rec, _owner) in enumerate(RECORDS[lang]):
        s1, s2 = p2["retention"][i]
        o1, o2 = p1["retention"][i]
        r = rec if lang == "de" else rec[0].lower() + rec[1:]
        add(
            RET_Q[lang][0].format(r=r),
            s1,
            o1,
            ["sentence"],
            f"retention of {rec}: {RETENTION[i]} -> {R2_RETENTION.get(i, RETENTION[i])}",
        )
        add(
            RET_Q[lang][1].format(r=r),
            f"{s1} {s2}",
            f"{o1} {o2}",
            ["sentence_split"],
            f"retention of {rec}: {RETENTION[i]} -> {R2_RETENTION.get(i, RETENTION[i])}",
        )
    for i, (what, _who) in enumerate(APPROVALS[lang]):
        w = (
            what.split(" {a}")[0]
            .replace(" up to", "")
            .replace(" bis", "")
            .replace(" above", "")
            .replace(" über", "")
        )
        amount = f"{APPROVAL_AMOUNTS[i]:,}".replace(",", "." if lang == "de" else ",")
        phrase = f"{what.format(a=amount)}"
        phrase = phrase[0].lower() + phrase[1:] if lang == "en" else phrase
        del w
        add(
            APPR_Q[lang][0].format(w=phrase),
            p2["approvals"][i],
            p1["approvals"][i],
            ["sentence"],
            f"approval threshold {APPROVAL_AMOUNTS[i]} -> {R2_APPROVAL.get(i, APPROVAL_AMOUNTS[i])} EUR",
        )


def main() -> None:
    DOCS.mkdir(parents=True, exist_ok=True)
    b = Builder()
    documents = []
    names = {
        ("table", "en"): "pricing_en",
        ("table", "de"): "preise_de",
        ("multipage_table", "en"): "catalog_en",
        ("multipage_table", "de"): "katalog_de",
        ("prose", "en"): "policy_en",
        ("prose", "de"): "richtlinie_de",
    }
    for lang in ("en", "de"):
        # one-page tables, two revisions
        key = f"{names[('table', lang)]}.pdf"
        revs = []
        for rev in ("r1", "r2"):
            path = DOCS / f"{names[('table', lang)]}_{rev}.pdf"
            make_pricing_pdf(lang, rev, path)
            revs.append(
                {
                    "revision": rev,
                    "path": f"docs/{path.name}",
                    "last_modified": R1_TIME if rev == "r1" else R2_TIME,
                }
            )
            b.texts[(key, rev)] = extract(path.read_bytes(), filename=path.name).text
        documents.append({"key": key, "lang": lang, "doc_type": "table", "revisions": revs})
        pricing_questions(b, lang, key)
        # three-page table, one revision
        key = f"{names[('multipage_table', lang)]}.pdf"
        path = DOCS / key
        make_catalog_pdf(lang, path)
        b.texts[(key, "r1")] = extract(path.read_bytes(), filename=path.name).text
        documents.append(
            {
                "key": key,
                "lang": lang,
                "doc_type": "multipage_table",
                "revisions": [{"revision": "r1", "path": f"docs/{key}", "last_modified": R1_TIME}],
            }
        )
        catalog_questions(b, lang, key)
        # prose policy, two revisions
        key = f"{names[('prose', lang)]}.md"
        revs = []
        for rev in ("r1", "r2"):
            path = DOCS / f"{names[('prose', lang)]}_{rev}.md"
            path.write_text(policy_markdown(lang, rev), encoding="utf-8")
            revs.append(
                {
                    "revision": rev,
                    "path": f"docs/{path.name}",
                    "last_modified": R1_TIME if rev == "r1" else R2_TIME,
                }
            )
            b.texts[(key, rev)] = extract(path.read_bytes(), filename=path.name).text
        documents.append({"key": key, "lang": lang, "doc_type": "prose", "revisions": revs})
        policy_questions(b, lang, key)
    (HERE / "corpus.json").write_text(
        json.dumps({"documents": documents}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    with (HERE / "questions.jsonl").open("w", encoding="utf-8") as fh:
        for q in b.questions:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    counts: dict[tuple[str, str], int] = {}
    for q in b.questions:
        k = (str(q["doc_type"]), str(q["lang"]))
        counts[k] = counts.get(k, 0) + 1
    print(f"{len(b.questions)} questions:", dict(sorted(counts.items())))
    print("revision questions:", sum("revision" in q for q in b.questions))


if __name__ == "__main__":
    main()
