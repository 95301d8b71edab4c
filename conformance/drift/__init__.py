"""Spec drift: what a new version of a source document changes, and which rules, scenarios and goldens follow.

Theory of operation. A document is cut into sections (by heading) and each section into *units*: the
sentences of a prose paragraph or list item, each table row, each code block (``document``). A unit's
fingerprint is a short hash of its lower-cased words (``fingerprint``), so re-wrapping, backticks and
table padding change nothing, while any change of wording does. Two versions are aligned section by
section (same heading, else a renamed heading whose content mostly agrees), then unit by unit inside each
pair of sections (``align``); the result is a list of passage changes, grouped by paragraph for a reader.

A rule's ``source`` names its section and, optionally, the fingerprints of the units it rests on (its
*passages*; ``conformance.catalogue.model.Source``). ``impact`` looks each rule up in the alignment: a rule
whose passages all survive is untouched however much the rest of its section moved; a rule without
passages falls back to its whole section. ``radius`` adds each affected rule's scenarios, goldens, mutants
and permitted variants; ``report`` renders the result. Everything here is a pure function of its inputs
except ``command`` (reads the files, writes ``build/spec/``).
"""
