"""The embedding models: their ids, their files, their tokenizers and the local encoders.

- `registry`: the known models (`ModelTokenizer`: id, token limit, prefixes, where
  the tokenizer comes from) and recognising a tokenizer file as a model's
- `files`: finding a model's files (installed package, a configured directory or zip)
- `counter`: `HFTokenCounter`, the chunker's `TokenCounter` backend over the model's
  own tokenizer.json, and `load_counter`; `word_counts`: its exact word memo
- `e5`, `minilm` (with `bert`, its numpy forward pass): the offline embedders;
  `local`: their process-wide instances; `sizes`: the port's fixed sizes

Nothing here reads the environment or keeps a configured default: a location
outside the installed packages (the Lambda tokenizer layer) is passed in by whoever
builds the counter or the embedder (`chunkwise.wiring.embedders`). The models sit
below the chunker and the embedder port (`chunkwise.embedding.embed`), which they
implement without importing it.
"""
