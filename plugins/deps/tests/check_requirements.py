"""Reads a pip requirements file the way pip splits it and checks every line that is not a
comment with the `packaging` library: a requirement (packaging.requirements.Requirement) or one
of the pip options requirements-npu.txt may hold.

    python3 check_requirements.py FILE

Prints one tab-separated line per entry, in file order:
    req  NAME  SPECIFIER  EXTRAS  MARKER  URL
    opt  OPTION  VALUE
and exits 1 naming the line when a line is neither.
"""

import sys

from packaging.requirements import InvalidRequirement, Requirement

OPTIONS = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
           "--extra-index-url", "-f", "--find-links"}


def logical_lines(text):
    """(line number, text) with backslash continuations joined, as pip reads them."""
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def without_comment(line):
    """pip's rule: '#' at the start of a line or after whitespace starts a comment."""
    for i, c in enumerate(line):
        if c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def check(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    for number, raw in logical_lines(text):
        line = without_comment(raw).strip()
        if not line:
            continue
        if line.startswith("-"):
            option, _, value = line.partition(" ")
            if "=" in option:  # --index-url=URL
                option, _, value = line.partition("=")
            value = value.strip()
            if option not in OPTIONS or not value or " " in value:
                raise ValueError(f"{path}:{number}: not an option requirements-npu.txt may hold: {raw}")
            out.append(f"opt\t{option}\t{value}")
            continue
        try:
            req = Requirement(line)
        except InvalidRequirement as e:
            raise ValueError(f"{path}:{number}: not a requirement ({e}): {raw}") from None
        out.append("\t".join(["req", req.name, str(req.specifier), ",".join(sorted(req.extras)),
                              str(req.marker) if req.marker else "", req.url or ""]))
    return out


if __name__ == "__main__":
    try:
        print("\n".join(check(sys.argv[1])))
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
