"""Hybrid search: query bodies, fusion, post-processing, the cluster's query model (pure)."""
