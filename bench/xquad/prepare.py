"""XQuAD (en, de) as `chunkwise eval` sets: one document per article, one question
per XQuAD question, split by article into a development and a held-out half.

XQuAD (Artetxe et al. 2020; CC BY-SA 4.0) is 240 SQuAD v1.1 paragraphs from 48
Wikipedia articles with 1,190 questions, professionally translated into ten
languages; the English and German files list the same articles in the same order.

    python -m bench.xquad.prepare --repo /path/to/google-deepmind/xquad[.git]

reads ``xquad.en.json`` and ``xquad.de.json`` at the pinned commit from a local
clone or mirror of the public repository (``git show``, so a bare mirror works),
checks their blob ids, and writes under ``.local/xquad/`` (git-ignored):

    dev-en/ dev-de/           articles 1-24 of each file (file order): development
    heldout-en/ heldout-de/   articles 25-48: the independent check, run once at the end

each with ``corpus.json``, ``questions.jsonl`` and ``docs/<nn>-<title>.md``. A
document is its article: ``# Title`` then the paragraphs, blank-line separated.
Evidence is a quote: the answer with up to ``CONTEXT_CHARS`` of its own paragraph
before it (from a word start), so that a short answer ("308", "1990") cannot be
matched anywhere else in the article. Each question is tagged with its type
(``qtype-what``, ``qtype-when``, ``qtype-how-many``, ...), read from the English
question's interrogative word and given to its German translation too (same XQuAD
id), so both languages are grouped alike.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path
from typing import Any

COMMIT = "7d30520c717524000f0d9d2f9c10a069acd9d285"
BLOBS = {
    "en": "cc0e3e8b94910097d29d2e9df5f266e1b30b2810",
    "de": "ad18712bf213f26e1ac086d98b23a0d866665bfc",
}
DEV_ARTICLES = 24  # articles 1-24 of each file; 25-48 are held out
CONTEXT_CHARS = 40
LAST_MODIFIED = "2020-01-01T00:00:00Z"


def read_pinned(repo: Path, lang: str) -> dict[str, Any]:
    """xquad.<lang>.json at the pinned commit, refused if its blob is not the pinned one."""
    name = f"xquad.{lang}.json"
    blob = subprocess.run(
        ["git", "--git-dir", str(_git_dir(repo)), "rev-parse", f"{COMMIT}:{name}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if blob != BLOBS[lang]:
        raise SystemExit(f"{name} at {COMMIT} is blob {blob}, expected {BLOBS[lang]}")
    raw = subprocess.run(
        ["git", "--git-dir", str(_git_dir(repo)), "cat-file", "blob", blob],
        check=True,
        capture_output=True,
    ).stdout
    data: dict[str, Any] = json.loads(raw.decode("utf-8"))
    return data


def _git_dir(repo: Path) -> Path:
    return repo / ".git" if (repo / ".git").exists() else repo


def _slug(title: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", title).strip("_").lower()[:40]


def evidence_quote(context: str, start: int, answer: str) -> str:
    """The answer with up to CONTEXT_CHARS of its paragraph before it, from a word start."""
    if context[start : start + len(answer)] != answer:
        found = context.find(answer)
        if found < 0:
            raise ValueError(f"answer {answer!r} not in its paragraph")
        start = found
    lead = max(0, start - CONTEXT_CHARS)
    while 0 < lead < start and not context[lead - 1].isspace():
        lead += 1  # do not begin inside a word
    return context[lead : start + len(answer)].strip()


# First match wins: the longer interrogative before its prefix ("how many" before "how").
_QTYPES = (
    ("how many", "how-many"),
    ("how much", "how-much"),
    ("how long", "how-long"),
    ("what year", "when"),
    ("when", "when"),
    ("where", "where"),
    ("who", "who"),
    ("whom", "who"),
    ("whose", "who"),
    ("which", "which"),
    ("why", "why"),
    ("how", "how"),
    ("what", "what"),
)


def question_type(question: str) -> str:
    """The type of an English question: its first interrogative word (``other`` if none)."""
    words = re.findall(r"[a-z]+", question.lower())
    text = " ".join(words)
    best: tuple[int, str] | None = None
    for phrase, name in _QTYPES:
        m = re.search(rf"\b{phrase}\b", text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else "other"


def question_types(data: dict[str, Any]) -> dict[str, str]:
    """XQuAD id -> question type, from the English file."""
    return {
        qa["id"]: question_type(qa["question"])
        for article in data["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    }


def article_document(article: dict[str, Any]) -> str:
    title = article["title"].replace("_", " ")
    paragraphs = [p["context"].strip() for p in article["paragraphs"]]
    return f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"


def write_split(
    out: Path, lang: str, articles: list[tuple[int, dict[str, Any]]], qtypes: dict[str, str]
) -> int:
    docs = out / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    corpus: list[dict[str, Any]] = []
    lines: list[str] = []
    for number, article in articles:
        name = f"{number:02d}-{_slug(article['title'])}.md"
        (docs / name).write_text(article_document(article), encoding="utf-8")
        key = f"xquad_{lang}/{name}"
        corpus.append(
            {
                "key": key,
                "lang": lang,
                "doc_type": "xquad",
                "revisions": [
                    {"revision": "r1", "path": f"docs/{name}", "last_modified": LAST_MODIFIED}
                ],
            }
        )
        for paragraph in article["paragraphs"]:
            context = paragraph["context"].strip()
            offset = len(paragraph["context"]) - len(paragraph["context"].lstrip())
            for qa in paragraph["qas"]:
                answer = qa["answers"][0]
                quote = evidence_quote(context, answer["answer_start"] - offset, answer["text"])
                lines.append(
                    json.dumps(
                        {
                            "id": f"xquad-{lang}-{qa['id']}",
                            "lang": lang,
                            "doc_type": "xquad",
                            "question": qa["question"].strip(),
                            "evidence": [{"source_key": key, "quote": quote}],
                            "tags": [
                                f"article-{number:02d}",
                                f"qtype-{qtypes.get(qa['id'], 'other')}",
                            ],
                        },
                        ensure_ascii=False,
                    )
                )
    (out / "corpus.json").write_text(
        json.dumps({"documents": corpus}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    (out / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo", type=Path, required=True, help="clone or mirror of the repository")
    p.add_argument("--out", type=Path, default=Path(".local/xquad"))
    args = p.parse_args(argv)
    qtypes = question_types(read_pinned(args.repo, "en"))
    for lang in ("en", "de"):
        articles = list(enumerate(read_pinned(args.repo, lang)["data"], start=1))
        if len(articles) != 48:
            raise SystemExit(f"xquad.{lang}.json: {len(articles)} articles, expected 48")
        dev, held = articles[:DEV_ARTICLES], articles[DEV_ARTICLES:]
        n_dev = write_split(args.out / f"dev-{lang}", lang, dev, qtypes)
        n_held = write_split(args.out / f"heldout-{lang}", lang, held, qtypes)
        print(f"{lang}: dev {len(dev)} articles / {n_dev} questions, held-out {n_held}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
