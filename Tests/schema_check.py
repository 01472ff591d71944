"""Validates rules files against the StubKit JSON Schema with python-jsonschema (a real validator).

Usage: schema_check.py SCHEMA FILE... ; prints one JSON object {file: [error messages]}.
A file that is not JSON at all is reported with the parser's message.
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
result = {}
for path in sys.argv[2:]:
    try:
        # Bytes: Python detects UTF-8 (with or without a BOM), UTF-16 and UTF-32, as StubKit reads them.
        with open(path, "rb") as handle:
            document = json.loads(handle.read())
    except ValueError as error:
        result[path] = [f"not JSON: {error}"]
        continue
    result[path] = sorted(e.message for e in validator.iter_errors(document))
print(json.dumps(result))
