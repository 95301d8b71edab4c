"""Judging a record: the path language, the matchers, normalisation of volatile values."""
