"""Validates the corpus of schemas and instances with python-jsonschema (Draft 2020-12, formats checked).

Usage: openapi_schema_check.py CORPUS ; prints a JSON list of lists: for each case, each instance's verdict (true = valid).
"""
import json
import sys

import jsonschema

cases = json.load(open(sys.argv[1]))
checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
# date-time needs rfc3339-validator; without it the format would pass silently and the test would lie.
if "date-time" not in checker.checkers:
    sys.exit("python-jsonschema cannot check date-time here: pip install rfc3339-validator")
verdicts = []
for case in cases:
    jsonschema.Draft202012Validator.check_schema(case["schema"])
    validator = jsonschema.Draft202012Validator(case["schema"], format_checker=checker)
    verdicts.append([validator.is_valid(instance) for instance in case["instances"]])
print(json.dumps(verdicts))
