"""Fault injection: the faults the pipeline must survive, run against the local stack."""
