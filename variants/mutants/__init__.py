"""Mutants, one module (or package) per system, each exposing ``MUTANTS``: the reference with one rule broken.

A mutant is a change of the system's policy object (``reference.<system>.policies``), handed to the
runtime through its public API; nothing in the runtime is patched. ``variants.all_mutants`` collects them.
"""
