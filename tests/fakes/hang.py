"""A stdio implementation that says hello and then never answers a run."""

from fake_impl import serve  # type: ignore[import-not-found]

serve("hang")
