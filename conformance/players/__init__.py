"""Players: the thin layer that translates a scenario case into calls on the reference's own API.

Together with ``conformance.adapters.reference`` these are the only harness modules that import
``reference``; the reference itself knows nothing of scenarios, YAML or judging.
"""
