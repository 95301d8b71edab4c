"""A stdio implementation that answers every run with a line that is not JSON."""

from fake_impl import serve  # type: ignore[import-not-found]

serve("garbage")
