"""A stdio implementation that plays normally but exits when a case id ends in ``fake-crash``."""

from fake_impl import serve  # type: ignore[import-not-found]

serve("good")
