"""Index generations, mapping, chunk documents, revision queries: request bodies (pure)."""
