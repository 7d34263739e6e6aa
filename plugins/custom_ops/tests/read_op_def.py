"""Reads a generated msopgen operator definition (JSON) for the custom_ops emit tests.

Checks what msopgen requires of the file: a list holding one operator with an "op" type, input
and output descriptions with a name, a param_type, and format and type lists of one length shared
by every tensor (each position is one supported combination), attributes with a name and a type.
Prints one line per tensor or attribute: "input NAME TYPES", "output NAME TYPES", "attr NAME TYPE",
with TYPES comma separated. Exits 1 with a message on the first violation.
"""

import json
import sys


def fail(message):
    print("invalid operator definition: " + message)
    sys.exit(1)


def main(path):
    with open(path, encoding="utf-8") as f:
        definition = json.load(f)
    if not isinstance(definition, list) or len(definition) != 1:
        fail("expected a list with one operator")
    op = definition[0]
    if not isinstance(op.get("op"), str) or not op["op"][:1].isupper():
        fail("'op' must be the operator type in PascalCase")
    combinations = None
    if not op.get("output_desc"):
        fail("an operator needs at least one output")
    for key, kind in (("input_desc", "input"), ("output_desc", "output")):
        for tensor in op.get(key, []):
            for field in ("name", "param_type", "format", "type"):
                if field not in tensor:
                    fail("%s without %s" % (kind, field))
            if len(tensor["format"]) != len(tensor["type"]):
                fail("%s %s: format and type differ in length" % (kind, tensor["name"]))
            if combinations is None:
                combinations = len(tensor["type"])
            elif combinations != len(tensor["type"]):
                fail("%s %s: %d types, other tensors have %d"
                     % (kind, tensor["name"], len(tensor["type"]), combinations))
            print("%s %s %s" % (kind, tensor["name"], ",".join(tensor["type"])))
    for attr in op.get("attr", []):
        if attr.get("type") not in ("int", "float", "bool"):
            fail("attribute %s has type %r" % (attr.get("name"), attr.get("type")))
        print("attr %s %s" % (attr["name"], attr["type"]))


if __name__ == "__main__":
    main(sys.argv[1])
