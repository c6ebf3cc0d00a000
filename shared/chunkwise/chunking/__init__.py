"""Canonical text -> citable chunks: config, blocks, table rows, token sizing, the chunker."""
