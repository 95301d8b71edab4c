"""Reports of a conformance run: report.json (model here), JUnit XML, Markdown and the console summary."""
