"""opensearch-py adapters: index generations and revisions, hybrid search, ML Commons."""
