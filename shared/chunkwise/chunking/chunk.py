"""The chunker: canonical text -> citable, token-capped, structure-aware chunks.

`chunk_text` runs named passes over plain data, each in its own module:

1. blocks (`chunkwise.chunking.blocks.parse_blocks`): typed blocks (headings,
   paragraphs, lists, code, tables), the atoms of packing.
2. languages (`languages.section_languages`): the language of each section,
   paragraph and list, when the language is detected.
3. sections (`sections.plan_blocks`): each content block with the heading
   context in force, and the spans to count.
4. split (`split.atomize`): blocks -> atoms. A block that fits the budget is
   one atom; one that does not is cut down the split ladder (`split.LADDER`:
   units (table rows, list items, code lines), ICU sentences, ICU words, and
   as a last resort grapheme clusters). No cut falls inside a grapheme cluster.
5. pack (`pack.pack`): atoms fill drafts greedily up to the character maximum
   and the hard token cap, each opened with its overlap; a draft past the soft
   target closes at the next paragraph boundary.
6. runts (`runts.coalesce_runts`): drafts below the runt floor merge backward
   (forward when blocked), never past the merge ceiling or the token cap.
7. cap (`cap.enforce_token_cap`): every final `text` is counted with the real
   sizer and any draft over the cap is split again.
8. stamp (`stamp.stamp`): drafts -> `Chunk`s with offsets, ids and the report.

`body` is always `text[start:end]` of the input, never normalised. Retrieval
context (heading path, overlap, table header) lives in separate fields and is
only joined into `text` (`context.contextualize`), the string that is indexed
and embedded. The chunker sizes through `sizing.TokenCounter`, never a
concrete tokenizer.
"""

from __future__ import annotations

from chunkwise.chunking.blocks import parse_blocks
from chunkwise.chunking.cap import enforce_token_cap
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.chunking.context import Document, contextualize
from chunkwise.chunking.languages import LanguageRuns, section_languages
from chunkwise.chunking.model import ChunkingReport
from chunkwise.chunking.pack import pack
from chunkwise.chunking.runts import coalesce_runts
from chunkwise.chunking.sections import plan_blocks
from chunkwise.chunking.sizing import TokenCounter
from chunkwise.chunking.spans import MAX_HEADING_CHARS, cap_heading
from chunkwise.chunking.split import atomize
from chunkwise.chunking.stamp import is_runt, stamp
from chunkwise.schema import Chunk
from chunkwise.text.lang import detect_language

__all__ = [
    "MAX_HEADING_CHARS",
    "ChunkingReport",
    "cap_heading",
    "chunk_text",
    "contextualize",
    "is_runt",
]


def chunk_text(
    text: str,
    lang: str | None = None,
    config: ChunkerConfig | None = None,
    *,
    counter: TokenCounter,
    report: ChunkingReport | None = None,
) -> list[Chunk]:
    """Chunk canonical text, sized by `counter`. Empty or whitespace-only text gives [].

    `lang` None or "auto" detects the language of the document and of each of
    its sections. `chunkwise.chunk_text` is this with the counter filled in (the
    tokenizer the config names, else the default model's).
    """
    cfg = config or ChunkerConfig()
    if not text.strip():
        return []
    auto = lang in (None, "auto")
    language = detect_language(text) if auto else str(lang)
    blocks = parse_blocks(text)
    runs = section_languages(text, blocks, language) if auto else LanguageRuns.single(language)
    doc = Document(text, cfg, counter, report or ChunkingReport(), runs)
    atoms = atomize(doc, plan_blocks(doc, blocks))
    drafts = coalesce_runts(doc, pack(doc, atoms))
    drafts, counts = enforce_token_cap(doc, drafts)
    return stamp(doc, drafts, counts)
