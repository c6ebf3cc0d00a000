"""The index as pure data: names, mapping, chunk documents, revision and retention
queries, the head record and the reader of the revision protocol (no I/O)."""
