"""JUnit XML for CI: one testcase per scenario, classname ``<system>/<area>``.

``xfail`` is written as skipped with the baseline's reason (as pytest does), so CI dashboards show known
failures without counting them as failures. Every text goes through ``escape.xml_text`` on its way in
(``_safe``), so the file is well-formed whatever characters an implementation sent.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from conformance.report.escape import xml_text
from conformance.report.model import Report


def _safe(element: ET.Element) -> ET.Element:
    """``element`` and everything under it with only characters XML 1.0 can carry."""
    for node in element.iter():
        node.attrib = {name: xml_text(value) for name, value in node.attrib.items()}
        if node.text:
            node.text = xml_text(node.text)
    return element


def to_junit(report: Report) -> str:
    s = report.summary
    suite = ET.Element(
        "testsuite",
        name=f"conformance: {report.implementation.name}",
        tests=str(s.total),
        failures=str(s.failed),
        errors=str(s.errored),
        skipped=str(s.skipped + s.xfailed),
        time=f"{sum(c.duration_ms for c in report.scenarios) / 1000:.3f}",
    )
    for case in report.scenarios:
        element = ET.SubElement(
            suite,
            "testcase",
            classname=f"{case.system}/{case.area}" if case.area else case.system,
            name=case.id.rsplit("/", 1)[-1],
            time=f"{case.duration_ms / 1000:.3f}",
        )
        if case.rules:
            properties = ET.SubElement(element, "properties")
            for rule in case.rules:
                ET.SubElement(properties, "property", name="rule", value=rule)
        first_line = case.message.splitlines()[0] if case.message else ""
        if case.verdict == "fail":
            ET.SubElement(element, "failure", message=first_line).text = case.message
        elif case.verdict == "error":
            ET.SubElement(element, "error", message=first_line).text = case.message
        elif case.verdict in ("skip", "xfail"):
            ET.SubElement(element, "skipped", message=first_line)
    for index, error in enumerate(report.catalogue_errors, 1):
        element = ET.SubElement(suite, "testcase", classname="catalogue", name=f"catalogue-error-{index}")
        ET.SubElement(element, "error", message=error.splitlines()[0]).text = error
    if report.catalogue_errors:
        suite.set("tests", str(s.total + len(report.catalogue_errors)))
        suite.set("errors", str(s.errored + len(report.catalogue_errors)))
    root = ET.Element("testsuites")
    root.append(_safe(suite))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
