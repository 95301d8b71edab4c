"""The conformance harness: catalogue, scenarios, adapters, judging and reports."""
