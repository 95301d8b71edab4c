"""Generated mutants: Cosmic Ray over the rule-bearing policy modules, the conformance suite as the test.

The hand-written mutants in ``variants/mutants`` each break one named rule; they only break what their
author thought of. This package measures the suite independently: Cosmic Ray makes small mechanical
changes (a shifted boundary, a negated condition, a changed number, a loop that never runs) to the
modules of the reference that decide documented rules, and the suite against that changed reference
must fail. ``nox -s mutation`` runs it; see :mod:`conformance.mutation_tool.plan` for what is mutated and
the budget, :mod:`.exclude` for the lines never mutated, :mod:`.probe` for the test command,
:mod:`.score` for the scores and :mod:`.triage` for the committed verdicts on the survivors.
"""
