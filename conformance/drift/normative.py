"""Which passages state behaviour (candidates for a rule) and which only show, link or introduce.

Deliberately generous: a passage a maintainer reads and dismisses costs a minute, a normative sentence
nobody looks at costs a missing rule. A unit is normative when it is prose, a list item or a table row
(not a code block: code in these documents is an example) and it holds a word that fixes behaviour: a
modal, a negation, or one of the verbs the documents use for what an API does.
"""

from __future__ import annotations

import re

from conformance.drift.document import Block, Unit

_MARKERS = re.compile(
    r"\b(must|shall|should|may|only|never|always|cannot|can't|not|no|none|requires?|required|default\w*|"
    r"raises?|throws?|rejects?|refuses?|returns?|receives?|counts?|resets?|preserv\w*|retains?|keeps?|"
    r"stops?|continues?|runs?|appl(?:y|ies)|unaffected|accepts?|validates?|includes?|excludes?|limits?|"
    r"exposes?|records?|creates?|restores?|uses?|takes? precedence|instead)\b",
    re.IGNORECASE,
)


def is_normative(unit: Unit, blocks: tuple[Block, ...]) -> bool:
    if blocks[unit.block].kind == "code":
        return False
    return _MARKERS.search(unit.text) is not None
