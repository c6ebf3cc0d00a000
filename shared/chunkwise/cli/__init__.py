"""The `chunkwise` command line and the local stack (not shipped in the Lambda packages)."""
