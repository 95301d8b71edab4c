"""Mutants, one module per system: the reference with one documented rule broken, as policy changes."""
