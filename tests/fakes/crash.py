"""A stdio implementation that plays normally except it exits when a case asks it to (``fake:crash``)."""

from fake_impl import serve  # type: ignore[import-not-found]

serve("good")
