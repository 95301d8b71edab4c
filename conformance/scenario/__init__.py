"""Scenarios as data: the pydantic model, the per-system setup and step vocabularies, and the loader."""
