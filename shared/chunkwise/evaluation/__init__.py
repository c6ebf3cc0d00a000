"""Retrieval evaluation: `chunkwise eval` (not shipped in the Lambda packages)."""
