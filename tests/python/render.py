"""Tiny Mustache renderer for the templates' tests (the real rendering is done by the emit
stage's renderer, engine/src/emit/mustache.cpp, which inserts variables verbatim as here).

It supports exactly the subset the templates are allowed to use, and refuses anything else:
- standalone block sections `{{#name}}` ... `{{/name}}`, each tag alone on its line (the line
  is dropped, as the Mustache spec does for standalone tags), not nested;
- plain variables `{{name}}`, inserted verbatim (the templates are code, not HTML).

Command line: python3 render.py TEMPLATE OUTPUT [--sections a,b,...] [--var name=value ...]
"""

import argparse
import re
import sys

_SECTION_TAG = re.compile(r"^\{\{([#/])([A-Za-z_][A-Za-z0-9_]*)\}\}$")
_VARIABLE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")


class TemplateError(ValueError):
    pass


def section_names(text):
    """Names of the block sections of a template, in order of appearance."""
    names = []
    for line in text.splitlines():
        match = _SECTION_TAG.match(line)
        if match and match.group(1) == "#":
            names.append(match.group(2))
    return names


def render(text, sections=(), variables=None):
    """Render ``text`` keeping the sections named in ``sections`` and substituting variables."""
    variables = {} if variables is None else variables
    sections = set(sections)
    known = set(section_names(text))
    unknown = sections - known
    if unknown:
        raise TemplateError("unknown sections requested: %s" % sorted(unknown))
    out = []
    open_section = None
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        match = _SECTION_TAG.match(line.rstrip("\n"))
        if match:
            kind, name = match.groups()
            if kind == "#":
                if open_section is not None:
                    raise TemplateError("line %d: section %s nested in %s"
                                        % (number, name, open_section))
                open_section = name
            else:
                if open_section != name:
                    raise TemplateError("line %d: {{/%s}} closes %s" % (number, name, open_section))
                open_section = None
            continue
        if open_section is not None and open_section not in sections:
            continue

        def substitute(var, number=number):
            name = var.group(1)
            if name not in variables:
                raise TemplateError("line %d: no value for variable %s" % (number, name))
            return str(variables[name])

        line = _VARIABLE.sub(substitute, line)
        if "{{" in line:
            raise TemplateError("line %d: unsupported Mustache tag: %s" % (number, line.strip()))
        out.append(line)
    if open_section is not None:
        raise TemplateError("section %s is never closed" % open_section)
    return "".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("template")
    parser.add_argument("output")
    parser.add_argument("--sections", default="", help="comma-separated section names")
    parser.add_argument("--var", action="append", default=[], help="name=value")
    args = parser.parse_args(argv)
    variables = dict(item.split("=", 1) for item in args.var)
    with open(args.template, encoding="utf-8") as handle:
        text = handle.read()
    sections = [name for name in args.sections.split(",") if name]
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(render(text, sections, variables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
