"""Writes N bundles of 50 rules each (every rule with its own JSON response file) for timing stublint.

    python3 Tools/scripts/make_lint_corpus.py /tmp/lint1000 1000
    swift build --traits Tools -c release --product stublint && time .build/release/stublint lint --quiet /tmp/lint1000
"""
import json
import os
import sys

root, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000
for b in range(count):
    folder = os.path.join(root, f"bundle{b:04d}")
    os.makedirs(folder, exist_ok=True)
    rules = [{"name": f"r{i}", "method": "GET", "path": f"/api/b{b}/res{i}/{{id}}", "status": 200, "response": f"r{i}.json"} for i in range(50)]
    with open(os.path.join(folder, "stubsRules.json"), "w") as f:
        json.dump(rules, f, indent=1)
    for i in range(50):
        with open(os.path.join(folder, f"r{i}.json"), "w") as f:
            f.write('{"id": %d}\n' % i)
