"""Do the catalogue's anchors still point at something? Every cited section must exist in the cited
document, and every passage fingerprint must be a unit of that section.

An anchor that no longer resolves means the document was edited under the rule: run the drift report
against the previous version to see what the passage became, then re-anchor the rule
(``python -m conformance.drift.fill``) after checking it still says what the rule says.
"""

from __future__ import annotations

from conformance.drift.document import Document
from conformance.drift.impact import RuleRef


def unresolved(rules: list[RuleRef], document: Document, name: str) -> list[str]:
    """One problem line per rule whose section or passages are not in ``document`` (named ``name``)."""
    problems: list[str] = []
    for rule in rules:
        section = document.section(rule.section)
        if section is None:
            problems.append(
                f"{rule.file}: {rule.id}: field source.section: {rule.section!r} is no heading of {name}"
            )
            continue
        missing = [p for p in rule.passages if p not in section.fingerprints()]
        if missing:
            problems.append(
                f"{rule.file}: {rule.id}: field source.passages: {', '.join(missing)} not found in section "
                f"{rule.section!r} of {name} (the passage was edited or moved)"
            )
    return problems
