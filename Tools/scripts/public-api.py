#!/usr/bin/env python3
"""The public API of a module as text, one declaration per line, from its symbol graph(s).

    public-api.py GRAPH_DIR MODULE            prints the list
    public-api.py GRAPH_DIR MODULE FILE       compares with FILE; exits 1 with the difference when they differ
    public-api.py GRAPH_DIR MODULE FILE --update   rewrites FILE

Tools/scripts/build-docs runs it for StubKit, StubKitTesting and StubKitContract against docs/api/*.txt, so a change to what
apps and test authors see is a deliberate, reviewed edit of those files. Synthesized members (==, hash,
the default implementations of protocol requirements) are left out: they follow from the conformances,
which are listed. The graphs are built on Linux, so declarations inside Apple-only #if blocks are not
in them.
"""
import difflib, json, pathlib, sys

def declarations(graph_dir, module):
    lines = set()
    folder = pathlib.Path(graph_dir)
    for path in [folder / f"{module}.symbols.json"] + sorted(folder.glob(f"{module}@*.symbols.json")):
        graph = json.loads(path.read_text())
        for symbol in graph["symbols"]:
            if "location" not in symbol:  # synthesized or inherited: no source of its own
                continue
            fragments = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            name = ".".join(symbol["pathComponents"])
            lines.add(f"{name}: {' '.join(fragments.split())}")
        for relation in graph.get("relationships", []):
            if relation["kind"] == "conformsTo" and relation.get("sourceOrigin") is None:
                source = next((s for s in graph["symbols"] if s["identifier"]["precise"] == relation["source"]), None)
                if source is not None and "location" in source:
                    target = relation.get("targetFallback") or relation["target"].split("s:")[-1]
                    lines.add(f"{'.'.join(source['pathComponents'])}: conforms to {target}")
    return sorted(lines)

def main():
    graph_dir, module = sys.argv[1], sys.argv[2]
    text = "\n".join(declarations(graph_dir, module)) + "\n"
    if len(sys.argv) == 3:
        sys.stdout.write(text)
        return 0
    target = pathlib.Path(sys.argv[3])
    if "--update" in sys.argv[4:]:
        target.write_text(text)
        print(f"public API of {module}: {target} rewritten ({text.count(chr(10))} lines)")
        return 0
    old = target.read_text() if target.exists() else ""
    if old == text:
        print(f"public API of {module}: {text.count(chr(10))} declarations, as in {target}")
        return 0
    sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), str(target), f"{module} as built"))
    print(f"public API of {module} differs from {target}: if the change is meant, run Tools/scripts/build-docs --update-api and commit the file", file=sys.stderr)
    return 1

sys.exit(main())
