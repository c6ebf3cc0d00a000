"""In-memory fakes of the ports, for unit tests (and integration tests that need only a bucket)."""
