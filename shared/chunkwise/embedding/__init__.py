"""The embedder port and the local models (multilingual-e5-small, all-MiniLM-L6-v2)."""
