"""Deliberately misbehaving (and one well-behaved) implementations, used to test the harness itself."""
