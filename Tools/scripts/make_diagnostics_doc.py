"""Regenerates docs/diagnostics.md from DiagnosticCode.swift and the fixtures' expected.txt files.

    python3 Tools/scripts/make_diagnostics_doc.py

DiagnosticCatalogueTests fails when the page lists a code no longer there or an example a fixture
no longer produces, so run this after changing codes or regenerating goldens.
"""
import glob
import os
import re

src = open("Sources/StubKit/Diagnostics/DiagnosticCode.swift").read()
rows = re.findall(r'static let (\w+) = DiagnosticCode\("(SK\d+)", \.(\w+), "([^"]+)"\)', src)
examples = {}
for path in sorted(glob.glob("Tests/Fixtures/broken/*/expected.txt")):
    for line in open(path):
        match = re.search(r"\[(SK\d+)\]$", line.strip())
        if match and match.group(1) not in examples:
            examples[match.group(1)] = (os.path.basename(os.path.dirname(path)), line.strip())

out = [
    "# Diagnostic codes",
    "",
    "Stable codes reported by the engine (activation errors) and by `stublint`. A code never changes meaning.",
    "Each example is the exact line from a fixture in `Tests/Fixtures/broken/<fixture>/expected.txt`, so it cannot go stale: the tests compare every fixture's output with it.",
    "",
    "| code | severity | name | meaning | fixture |",
    "|---|---|---|---|---|",
]
for name, code, severity, summary in rows:
    fixture = examples.get(code, ("", ""))[0]
    out.append(f"| {code} | {severity} | `{name}` | {summary} | {('`' + fixture + '`') if fixture else '(activation: see ActivationTests)'} |")
out += ["", "## Examples", ""]
for name, code, severity, summary in rows:
    if code in examples:
        out.append(f"- **{code}** ({examples[code][0]}):")
        out.append(f"  `{examples[code][1]}`")
open("docs/diagnostics.md", "w").write("\n".join(out) + "\n")
