"""The embedder port and its capabilities (the models behind it: `chunkwise.models`,
`chunkwise.adapters.bedrock`)."""
