"""The ingest pipeline: object changes to index revisions, within a per-document budget."""
