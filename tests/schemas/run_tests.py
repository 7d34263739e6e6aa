#!/usr/bin/env python3
"""Keeps docs/schemas/*.schema.json true: well-formed, every shipped file valid, in step with the loaders.

    run_tests.py --cli build/bin/migrate-pipeline --source . [--check well-formed|shipped|in-step|all]

well-formed  the schemas are draft-07 schemas; every property has a description; no $ref has
             siblings (draft-07 ignores them).
shipped      every shipped pipeline, fleet manifest, rule file, pack file and plan section validates and
             carries the yaml-language-server modeline; the deliberately broken rule file does not.
in-step      the loaders and the schemas agree: the key sets the loaders accept (read from their
             sources) are the schemas' closed objects, their choice lists are the schemas' enums;
             `config dump` of every shipped pipeline validates and a minimal pipeline's dump
             shows the schema's defaults; written cases (typos, wrong types, bad enums, out of
             range values, and valid variants) get the same verdict from the loader (run through
             the CLI) and from the schema; pack files, and rule files as a pack's, through
             `plugins --rule-pack DIR`.

Files are read as YAML 1.2 (what yaml-language-server and yaml-cpp read): `1e-05` is a
number, `yes` is a string. Nothing is written into the source tree; cases go to a temporary
directory. Exit status 1 when anything failed, with one message per failure.
"""

import argparse
import copy
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import jsonschema
import yaml

FAILURES = []
DEFAULTS_COMPARED = []


def fail(message):
    FAILURES.append(message)
    print("FAIL: " + message, flush=True)


# --- YAML 1.2 core schema on top of PyYAML's 1.1 loader -------------------------------------


class Yaml12Loader(yaml.SafeLoader):
    pass


_DROPPED = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
            "tag:yaml.org,2002:timestamp"}
Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _DROPPED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789"))
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
               r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+.0123456789"))


def _int12(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    return int(text, 0) if text.startswith("0x") else int(text, 10)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int12)


def load_yaml(text):
    return yaml.load(text, Loader=Yaml12Loader)


def dump_yaml(data):
    # Quoted where YAML 1.1 and 1.2 differ, so the loader reads what the schema checks.
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


# --- schemas ---------------------------------------------------------------------------------

SCHEMAS = {"pipeline": "pipeline.schema.json", "fleet": "fleet.schema.json", "rules": "rules.schema.json",
           "pack": "pack.schema.json"}
LOADERS = {
    "pipeline": ["engine/src/pipeline/pipeline_loader.cpp", "engine/src/pipeline/plan_spec.cpp",
                 "engine/src/pipeline/verify_spec.cpp"],
    "fleet": ["engine/src/fleet/fleet_spec.cpp"],
    "rules": ["engine/src/rules/rule_loader.cpp"],
    "pack": ["engine/src/rules/rule_pack.cpp"],
}
HEADERS = ["engine/include/migrate/engine/pipeline.hpp"]  # constants the loaders share (kAllStages)


class Schemas:
    def __init__(self, source):
        self.source = source
        self.docs = {}
        for kind, name in SCHEMAS.items():
            path = os.path.join(source, "docs", "schemas", name)
            with open(path, encoding="utf-8") as f:
                self.docs[kind] = json.load(f)

    def validator(self, kind, definition=None):
        schema = self.docs[kind]
        if definition:
            schema = {"$ref": "#/definitions/" + definition, "definitions": schema["definitions"]}
        return jsonschema.Draft7Validator(schema)

    def errors(self, kind, data, definition=None):
        out = []
        for e in sorted(self.validator(kind, definition).iter_errors(data), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            out.append(f"{where}: {e.message[:300]}")
        return out


def resolve(root, node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        node = root
        for part in ref[2:].split("/"):
            node = node[part]
    return node


def branches(root, node):
    """The node and every subschema that applies to the same instance (allOf/anyOf/oneOf/if/then/else)."""
    node = resolve(root, node)
    if not isinstance(node, dict):
        return
    yield node
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key, []):
            yield from branches(root, sub)
    for key in ("then", "else"):
        if key in node:
            yield from branches(root, node[key])


def walk(node, path=()):
    """Every dict in a JSON document with its path."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + (i,))


def closed_key_sets(schema):
    """Key sets of the schema's closed objects (additionalProperties: false), with their paths."""
    out = []
    for path, node in walk(schema):
        if node.get("additionalProperties") is False and "properties" in node:
            out.append((frozenset(node["properties"]), "/".join(map(str, path)) or "(top)"))
    return out


def enums(schema):
    out = []
    for path, node in walk(schema):
        if isinstance(node.get("enum"), list) and all(isinstance(x, str) for x in node["enum"]):
            out.append((frozenset(node["enum"]), "/".join(map(str, path))))
    return out


# --- well-formed -----------------------------------------------------------------------------


def check_well_formed(s):
    for kind, schema in s.docs.items():
        name = SCHEMAS[kind]
        try:
            jsonschema.Draft7Validator.check_schema(schema)
        except jsonschema.SchemaError as e:
            fail(f"{name}: not a draft-07 schema: {e.message}")
            continue
        if schema.get("$schema") != "http://json-schema.org/draft-07/schema#":
            fail(f"{name}: $schema is not draft-07")
        for path, node in walk(schema):
            where = "/".join(map(str, path)) or "(top)"
            if "$ref" in node and len(node) > 1:
                fail(f"{name}: {where}: $ref has siblings {sorted(set(node) - {'$ref'})} "
                     "(draft-07 ignores them; wrap the $ref in allOf)")
            if path[-1:] == ("properties",) or {"if", "then", "else", "not"} & set(path):
                continue  # a property named "properties", or a condition rather than a description
            for key, prop in node.get("properties", {}).items():
                if not isinstance(prop, dict):
                    continue
                if not any("description" in b for b in branches(schema, prop)):
                    fail(f"{name}: {where}/properties/{key} has no description")


# --- shipped files ---------------------------------------------------------------------------

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)\s*$", re.M)
# Rule files of the test plugins that are broken on purpose (the host must refuse them).
BROKEN_RULE_FILES = {"tests/plugins/rules/bad.yaml"}


def classify(doc):
    if not isinstance(doc, dict):
        return None
    if "format" in doc and "pipeline" in doc:
        return "fleet"
    if "format" in doc and "migrate_pipeline" in doc:
        return "pack"
    if "version" in doc and "source" in doc:
        return "pipeline"
    if "format" in doc and "domain" in doc and "rules" in doc:
        return "rules"
    return None


def rel(source, path):
    return os.path.relpath(path, source)


def check_modeline(source, path, text, kind, required):
    m = MODELINE.search(text)
    if not m:
        if required:
            fail(f"{rel(source, path)}: no `# yaml-language-server: $schema=...` line "
                 f"(add one pointing to docs/schemas/{SCHEMAS[kind]})")
        return
    target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
    expected = os.path.normpath(os.path.join(source, "docs", "schemas", SCHEMAS[kind]))
    if target != expected:
        fail(f"{rel(source, path)}: the modeline points to {m.group(1)}, not to {SCHEMAS[kind]} "
             f"(expected {os.path.relpath(expected, os.path.dirname(path))})")


def check_shipped(s, source):
    checked = {"pipeline": 0, "fleet": 0, "rules": 0, "pack": 0, "plan": 0}
    files = []  # (path, kind or None = classify, modeline required)
    for p in sorted(glob.glob(os.path.join(source, "pipelines", "*.yaml"))):
        files.append((p, None, True))
    for p in sorted(glob.glob(os.path.join(source, "plugins", "*", "rules", "*.yaml"))):
        files.append((p, "rules", True))
    for p in sorted(glob.glob(os.path.join(source, "examples", "**", "*.yaml"), recursive=True)):
        files.append((p, None, "/rules/" in p or os.path.basename(p) == "pack.yaml"))
    for p in sorted(glob.glob(os.path.join(source, "tests", "plugins", "rules", "*.yaml"))):
        if rel(source, p) not in BROKEN_RULE_FILES:
            files.append((p, "rules", False))
    for path, kind, modeline in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            doc = load_yaml(text)
        except yaml.YAMLError as e:
            fail(f"{rel(source, path)}: not YAML: {e}")
            continue
        kind = kind or classify(doc)
        if kind is None:
            if "pipelines" in path:
                fail(f"{rel(source, path)}: neither a pipeline nor a fleet manifest")
            continue  # an example's own data (e.g. a project's config), not ours
        for e in s.errors(kind, doc):
            fail(f"{rel(source, path)} does not validate against {SCHEMAS[kind]}: {e}")
        check_modeline(source, path, text, kind, modeline)
        checked[kind] += 1
    # `plan:` sections on their own: the defaults and the plan fixtures' settings.
    plans = [os.path.join(source, "engine", "data", "plan_defaults.yaml")]
    plans += sorted(glob.glob(os.path.join(source, "tests", "plan_fixtures", "*", "plan.yaml")))
    for path in plans:
        with open(path, encoding="utf-8") as f:
            doc = load_yaml(f.read())
        for e in s.errors("pipeline", doc, "plan"):
            fail(f"{rel(source, path)} is not a valid `plan:` section of pipeline.schema.json: {e}")
        checked["plan"] += 1
    for path in sorted(BROKEN_RULE_FILES):
        with open(os.path.join(source, path), encoding="utf-8") as f:
            if not s.errors("rules", load_yaml(f.read())):
                fail(f"{path} is broken on purpose, but rules.schema.json accepts it")
    for kind in ("pipeline", "fleet", "rules", "pack"):
        if not checked[kind]:
            fail(f"no shipped {kind} file found under {source} (wrong --source?)")
    print(f"shipped: {checked['pipeline']} pipelines, {checked['fleet']} fleet manifests, "
          f"{checked['rules']} rule files, {checked['pack']} pack files, {checked['plan']} plan sections checked")


# --- in step: key sets and choice lists read from the loaders' sources -----------------------

CONST = re.compile(r"const\s+std::vector<std::string>\s+(\w+)\s*\{([^{}]*)\}\s*;", re.S)
CHECK_KEYS = re.compile(r"\bcheckKeys\(\s*[^,()]+,\s*(\{[^{}]*\}|\w+)", re.S)
CHOICE = re.compile(r"\bchoice\(\s*[^,()]+(?:\([^()]*\))?,\s*(\{[^{}]*\}|\w+)", re.S)
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def loader_lists(source, files):
    constants = {}
    for f in HEADERS + files:
        with open(os.path.join(source, f), encoding="utf-8") as h:
            for name, body in CONST.findall(h.read()):
                constants.setdefault(name, STRING.findall(body))
    keys, choices, unresolved = [], [], []
    for f in files:
        with open(os.path.join(source, f), encoding="utf-8") as h:
            text = h.read()
        for rx, out in ((CHECK_KEYS, keys), (CHOICE, choices)):
            for m in rx.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                arg = m.group(1)
                if arg.startswith("{"):
                    out.append((frozenset(STRING.findall(arg)), f"{f}:{line}"))
                elif arg in constants:
                    out.append((frozenset(constants[arg]), f"{f}:{line}"))
                else:
                    unresolved.append(f"{f}:{line} ({arg})")
    return keys, choices, unresolved


# Choice lists computed at run time (verify.target: the names of `targets`).
DYNAMIC_CHOICES = {"names"}
# Schema enums with no loader choice list behind them: the loader's booleans also read yes/no.
SCHEMA_ONLY_ENUMS = {frozenset({"yes", "no"})}


def check_loader_lists(s, source):
    for kind, files in LOADERS.items():
        name = SCHEMAS[kind]
        keys, choices, unresolved = loader_lists(source, files)
        for u in unresolved:
            if u.rsplit("(", 1)[1].rstrip(")") not in DYNAMIC_CHOICES:
                fail(f"{u}: a key or choice list the test cannot read; name it in a "
                     "`const std::vector<std::string>` or write it inline")
        if not keys:
            fail(f"no checkKeys calls found in {files}: has the loader moved?")
        schema_keys = closed_key_sets(s.docs[kind])
        schema_sets = {k for k, _ in schema_keys}
        loader_sets = {k for k, _ in keys}
        for k, where in keys:
            if k not in schema_sets:
                near = min(schema_keys, key=lambda x: len(x[0] ^ k))
                fail(f"{where}: the loader accepts the keys {sorted(k)}, but no closed object of {name} "
                     f"has exactly these properties (closest: {near[1]}: only in loader "
                     f"{sorted(k - near[0])}, only in schema {sorted(near[0] - k)})")
        for k, where in schema_keys:
            if k not in loader_sets:
                fail(f"{name}: {where} allows {sorted(k)}, but no checkKeys call in {files} accepts "
                     "exactly these keys")
        schema_enums = enums(s.docs[kind])
        enum_sets = {k for k, _ in schema_enums}
        choice_sets = {k for k, _ in choices}
        for k, where in choices:
            if k not in enum_sets:
                fail(f"{where}: the loader's choices {sorted(k)} are no enum of {name}")
        for k, where in schema_enums:
            if k not in choice_sets and k not in SCHEMA_ONLY_ENUMS:
                fail(f"{name}: {where}: enum {sorted(k)} is no choice list of the loader")
        print(f"in-step: {name}: {len(keys)} key lists and {len(choices)} choice lists of the loader match")


# --- in step: the CLI ------------------------------------------------------------------------

DELETE = object()


class Replace:
    """A case's value that replaces the base's mapping instead of being merged into it."""

    def __init__(self, value):
        self.value = value


def merged(base, change):
    out = copy.deepcopy(base)
    for key, value in change.items():
        if value is DELETE:
            out.pop(key, None)
        elif isinstance(value, Replace):
            out[key] = copy.deepcopy(value.value)
        elif isinstance(value, dict) and isinstance(out.get(key), dict) and value:
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def run(cli, args, cwd):
    try:
        p = subprocess.run([cli] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", f"cannot run {cli}: {e}"
    return p.returncode, p.stdout, p.stderr.strip()


def equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return a == b


def check_defaults(root, doc, given, nodes=None, path=""):
    """Every `default` of the schema equals what `config dump` prints for a key the input left unset."""
    nodes = nodes if nodes is not None else [root]
    for key, value in doc.items():
        where = f"{path}.{key}" if path else str(key)
        props = list(props_for(root, nodes, key))
        written = given.get(key) if isinstance(given, dict) else None
        defaults = [sub["default"] for p in props for sub in branches(root, p) if "default" in sub]
        if defaults and not (isinstance(given, dict) and key in given):
            DEFAULTS_COMPARED.append(where)
        if defaults and not (isinstance(given, dict) and key in given) and not equal(defaults[0], value):
            fail(f"pipeline.schema.json: the default of {where} is {json.dumps(defaults[0])}, but `config dump` "
                 f"of a pipeline that does not set it prints {json.dumps(value)}")
        if isinstance(value, dict):
            check_defaults(root, value, written, props, where)
        elif isinstance(value, list):
            items = [b["items"] for p in props for b in branches(root, p) if isinstance(b.get("items"), dict)]
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    sub = written[i] if isinstance(written, list) and i < len(written) else None
                    check_defaults(root, item, sub, items, f"{where}[{i}]")


def props_for(root, nodes, key):
    """The schemas of `key` in objects described by any of `nodes` (properties, else additionalProperties)."""
    for node in nodes:
        for b in branches(root, node):
            if key in b.get("properties", {}):
                yield b["properties"][key]
            elif isinstance(b.get("additionalProperties"), dict):
                yield b["additionalProperties"]


class Case:
    def __init__(self, name, change, loader, schema=None):
        self.name = name
        self.change = change
        self.loader = loader  # "accept" or "reject"
        self.schema = schema or loader  # differs only for the gaps documented in docs/schemas/README.md


A, R = "accept", "reject"

PIPELINE_BASE = {
    "version": 1,
    "name": "schema-case",
    "source": {"path": "project"},
    "plugins": {"device": {}},
}

PIPELINE_CASES = [
    # valid variants
    Case("the minimal pipeline", {}, A),
    Case("rule packs", {"rule_packs": ["packs/acme", "/opt/packs/other"]}, A),
    Case("rule_packs as one path", {"rule_packs": "packs/acme"}, R),
    Case("plugins as a list", {"plugins": ["device", "precision"]}, A),
    Case("a plugin with nothing after it", {"plugins": {"device": None}}, A),
    Case("a disabled plugin with yes/no", {"plugins": {"device": {"enabled": "no"}, "precision": {}}}, A),
    Case("stages out of order with a duplicate", {"stages": ["report", "analyze", "analyze"]}, A),
    Case("include as one glob", {"include": "src/**", "exclude": ["**/third_party/**"]}, A),
    Case("both limits", {"limits": {"max_file_bytes": 10_000_000_000, "parse_timeout_ms": 1}}, A),
    Case("a git source with ref and mirror",
         {"source": {"path": DELETE, "url": "https://example.com/r.git", "ref": "v1", "mirror": "/tmp/m.git"}}, A),
    Case("an ssh target chosen for verify",
         {"targets": {"lab": {"host": "npu01", "port": 2222, "user": "ci", "python": "/opt/py/bin/python"},
                      "local": None},
          "verify": {"target": "lab", "timeout": 604800, "stage_timeout": 1, "tests": "none",
                     "benchmark": True,
                     "precision": [{"name": "p", "command": "{python} x.py", "outputs": "a/b.json", "rtol": 0}]}},
         A),
    Case("a second local target", {"targets": {"box": {"kind": "local", "workdir": "/tmp/w"}}}, A),
    Case("plan overrides", {"plan": {"goal": "inference_only",
                                     "effort": {"days_per_week": 7, "difficulty": {"low": {"first": 0.2}},
                                                "rules": {"DEV-001": {"first": 1}}},
                                     "goals": {"distributed_training": None,
                                               "smoke": {"phases": ["train"], "title": "Smoke"}}}}, A),
    Case("plan: with nothing after it", {"plan": None}, A),
    Case("emit, report and cache settings",
         {"emit": {"templates": "tpl", "layout": "siblings"}, "report": {"directory": "", "max_items": 1000000},
          "cache": {"enabled": False, "dir": "c", "max_size_mb": 1073741824}}, A),
    Case("plugin options", {"plugins": {"custom_ops": {"options": {"skip_dirs": ["vendor"],
                                                                   "include_npu_paths": True}}}}, A),
    # rejected by both
    Case("a typo in a top-level key", {"jbos": 4}, R),
    Case("a typo in limits", {"limits": {"max_file_byte": 10}}, R),
    Case("a typo in a plugin's settings", {"plugins": {"device": {"enabeld": True}}}, R),
    Case("a typo in verify", {"verify": {"timout": 10}}, R),
    Case("a typo in a target", {"targets": {"lab": {"host": "h", "usr": "x"}}}, R),
    Case("a typo in plan.effort", {"plan": {"effort": {"days_per_weak": 5}}}, R),
    Case("version 2", {"version": 2}, R),
    Case("no version", {"version": DELETE}, R),
    Case("no source", {"source": DELETE}, R),
    Case("source with path and url", {"source": {"url": "https://example.com/r.git"}}, R),
    Case("ref on a local path", {"source": {"ref": "main"}}, R),
    Case("jobs as a word", {"jobs": "four"}, R),
    Case("jobs above 1024", {"jobs": 1025}, R),
    Case("a negative jobs", {"jobs": -1}, R),
    Case("a misspelt stage", {"stages": ["analyse"]}, R),
    Case("no stages", {"stages": []}, R),
    Case("stages as one word", {"stages": "analyze"}, R),
    Case("a negative parse timeout", {"limits": {"parse_timeout_ms": -5}}, R),
    Case("a zero file size limit", {"limits": {"max_file_bytes": 0}}, R),
    Case("a limit as a float", {"limits": {"max_file_bytes": 1.5}}, R),
    Case("no plugins", {"plugins": {}}, R),
    Case("a plugin listed twice", {"plugins": ["device", "device"]}, R),
    Case("plugin options as a list", {"plugins": {"device": {"options": ["a"]}}}, R),
    Case("enabled as a word", {"plugins": {"device": {"enabled": "sometimes"}}}, R),
    Case("an unknown emit layout", {"emit": {"layout": "tree"}}, R),
    Case("report.max_items 0", {"report": {"max_items": 0}}, R),
    Case("cache.max_size_mb 0", {"cache": {"max_size_mb": 0}}, R),
    Case("verify: with nothing after it", {"verify": None}, R),
    Case("a zero verify timeout", {"verify": {"timeout": 0}}, R),
    Case("a verify timeout over a week", {"verify": {"stage_timeout": 604801}}, R),
    Case("a precision check without outputs", {"verify": {"precision": [{"name": "p", "command": "c"}]}}, R),
    Case("a precision output leaving {out}",
         {"verify": {"precision": [{"name": "p", "command": "c", "outputs": ["../x"]}]}}, R),
    Case("a precision name with a slash",
         {"verify": {"precision": [{"name": "a/b", "command": "c", "outputs": ["x"]}]}}, R),
    Case("a negative rtol", {"verify": {"precision": [{"name": "p", "command": "c", "outputs": ["x"], "rtol": -1}]}}, R),
    Case("the local target as ssh", {"targets": {"local": {"kind": "ssh", "host": "h"}}}, R),
    Case("an ssh target without a host", {"targets": {"lab": {"user": "ci"}}}, R),
    Case("a port out of range", {"targets": {"lab": {"host": "h", "port": 70000}}}, R),
    Case("a local target with a host", {"targets": {"box": {"kind": "local", "host": "h"}}}, R),
    Case("an unknown target kind", {"targets": {"lab": {"kind": "docker", "host": "h"}}}, R),
    Case("an empty python", {"targets": {"local": {"python": ""}}}, R),
    Case("days_per_week 0", {"plan": {"effort": {"days_per_week": 0}}}, R),
    Case("days_per_week 8", {"plan": {"effort": {"days_per_week": 8}}}, R),
    Case("an unknown difficulty level", {"plan": {"effort": {"difficulty": {"extreme": {"first": 1}}}}}, R),
    Case("a rule rate without first", {"plan": {"effort": {"rules": {"DEV-001": {"each": 1}}}}}, R),
    Case("a negative rate", {"plan": {"effort": {"difficulty": {"low": {"first": -1}}}}}, R),
    Case("no phases", {"plan": {"phases": []}}, R),
    Case("a phase name in capitals",
         {"plan": {"phases": [{"name": "Train"}], "goals": {"x": {"phases": ["Train"]}}, "goal": "x"}}, R),
    Case("a goal without phases", {"plan": {"goals": {"smoke": {"title": "Smoke"}}}}, R),
    Case("a goal name with a dash", {"plan": {"goals": {"smoke-test": {"phases": ["train"]}}}}, R),
    # What a schema cannot say: names that must refer to other entries of the same file.
    Case("verify.target naming no target", {"verify": {"target": "nowhere"}}, R, schema=A),
    Case("plan.goal naming no goal", {"plan": {"goal": "nowhere"}}, R, schema=A),
    Case("a goal needing an undeclared phase", {"plan": {"goals": {"smoke": {"phases": ["warmup"]}}}}, R, schema=A),
]

FLEET_CASES = [
    Case("the minimal manifest", {}, A),
    Case("rule packs in the defaults", {"defaults": {"rule_packs": ["packs/acme"]}}, A),
    Case("rule_packs as one path", {"defaults": {"rule_packs": "packs/acme"}}, R),
    Case("rule_packs of a repository", {"repos": [{"name": "a", "source": "repo", "rule_packs": ["p"]}]}, R),
    Case("every key",
         {"keep_nights": 10000, "fetch": {"concurrency": 64, "attempts": 10, "backoff": "500ms"},
          "deliver": {"remote": "source", "branch": "npu/{name}-{date}", "author_name": "bot",
                      "author_email": "bot@example.com"},
          "defaults": {"ref": "main", "timeout": "1h30m", "memory": "16MiB", "stages": ["analyze", "report"],
                       "set": {"verify.target": "local", "plugins.precision.enabled": False}},
          "repos": [{"name": "a.b-c_d", "source": "repo", "ref": "v1", "timeout": 90, "memory": "17179869184",
                     "stages": ["analyze"], "set": {"jobs": 2}}]}, A),
    Case("repos_file only", {"repos": DELETE, "repos_file": "repos.csv"}, A),
    Case("durations and sizes at their limits",
         {"defaults": {"timeout": "1000ms", "memory": "16384K"}, "fetch": {"backoff": 1}}, A),
    Case("a memory size with a space", {"defaults": {"memory": "4 GiB"}}, A),
    Case("a typo in a top-level key", {"keep_night": 3}, R),
    Case("a typo in fetch", {"fetch": {"concurency": 2}}, R),
    Case("a typo in a repository", {"repos": [{"name": "a", "source": "repo", "branch": "main"}]}, R),
    Case("name in defaults", {"defaults": {"name": "x"}}, R),
    Case("format 2", {"format": 2}, R),
    Case("no pipeline", {"pipeline": DELETE}, R),
    Case("no repositories", {"repos": DELETE}, R),
    Case("an empty repos list", {"repos": []}, R),
    Case("keep_nights 0", {"keep_nights": 0}, R),
    Case("keep_nights as a word", {"keep_nights": "seven"}, R),
    Case("fetch.concurrency 65", {"fetch": {"concurrency": 65}}, R),
    Case("fetch.attempts 0", {"fetch": {"attempts": 0}}, R),
    Case("a backoff with a space", {"fetch": {"backoff": "2 s"}}, R),
    Case("an ambiguous duration", {"defaults": {"timeout": "1h30"}}, R),
    Case("a timeout below 1s", {"defaults": {"timeout": "500ms"}}, R),
    Case("a zero timeout", {"defaults": {"timeout": 0}}, R),
    Case("a duration in days", {"defaults": {"timeout": "1d"}}, R),
    Case("memory below 16MiB", {"defaults": {"memory": "15MiB"}}, R),
    Case("memory in K below 16MiB", {"defaults": {"memory": "16383K"}}, R),
    Case("memory in decimal units", {"defaults": {"memory": "4GB"}}, R),
    Case("memory as a fraction", {"defaults": {"memory": "1.5GiB"}}, R),
    Case("a repository name with a space", {"repos": [{"name": "a b", "source": "repo"}]}, R),
    Case("a repository named ..", {"repos": [{"name": "..", "source": "repo"}]}, R),
    Case("a repository without source", {"repos": [{"name": "a"}]}, R),
    Case("a repository with an empty source", {"repos": [{"name": "a", "source": ""}]}, R),
    Case("no stages", {"defaults": {"stages": []}}, R),
    Case("a misspelt stage", {"repos": [{"name": "a", "source": "repo", "stages": ["deploy"]}]}, R),
    Case("a set key that is not dotted", {"defaults": {"set": {".jobs": 2}}}, R),
    Case("deliver without remote", {"deliver": {"branch": "x"}}, R),
    Case("a delivery branch under refs/", {"deliver": {"remote": "source", "branch": "refs/heads/x"}}, R),
    Case("a delivery branch with ..", {"deliver": {"remote": "source", "branch": "a..b"}}, R),
    Case("a delivery branch with a space", {"deliver": {"remote": "source", "branch": "a b"}}, R),
    # What a schema cannot say: names unique across entries.
    Case("a repository name used twice",
         {"repos": [{"name": "a", "source": "repo"}, {"name": "a", "source": "repo"}]}, R, schema=A),
]

PROBE = "__schema_probe__"


def pipeline_verdict(cli, work, data):
    path = os.path.join(work, "pipeline.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dump_yaml(data))
    code, out, err = run(cli, ["config", "dump", path], work)
    if code not in (0, 2):
        return None, f"`config dump` exited {code}: {err}", None
    return (A, err, out) if code == 0 else (R, err, None)


def fleet_verdict(cli, work, data):
    """`fleet run --only PROBE` loads the manifest and stops before any work: a loaded manifest
    ends with "--only PROBE: no repository of that name", a refused one with its own error."""
    path = os.path.join(work, "fleet.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dump_yaml(data))
    code, _, err = run(cli, ["fleet", "run", path, "--output", os.path.join(work, "fleet-out"),
                             "--only", PROBE], work)
    if code != 2:
        return None, f"`fleet run --only {PROBE}` exited {code}: {err}", None
    if os.path.exists(os.path.join(work, "fleet-out")):
        return None, "`fleet run --only` wrote its directory: the probe no longer stops before work", None
    return (A if f"--only {PROBE}" in err else R), err, None


# A pack's rule file for the pack cases: one rule of the device domain, and one of the domain
# PACK_BASE declares.
PACK_RULES = """format: 1
domain: device
rules:
  - id: PK-001
    message: "{api} found"
    match: {api: [acme.gpu.launch]}
    confidence: high
    difficulty: low
    effort_days: 0.1
    tests: {invalid: ["import acme.gpu\\nacme.gpu.launch()\\n"], valid: ["import acme\\n"]}
"""
PACK_RULES_NEW_DOMAIN = PACK_RULES.replace("domain: device", "domain: pk_runtime").replace("PK-001", "PK-002")

PACK_BASE = {
    "format": 1,
    "name": "pk",
    "version": "1.0.0",
    "prefix": "PK",
    "migrate_pipeline": ">=0.4, <1",
    "domains": [{"name": "pk_runtime", "title": "PK Runtime Issues"}],
}

PACK_CASES = [
    Case("the minimal pack", {}, A),
    Case("every key", {"description": "d", "homepage": "https://example.com/pk", "migrate_pipeline": "0.4.0"}, A),
    Case("a range of one term with spaces", {"migrate_pipeline": " >= 0.1 "}, A),
    Case("no domains", {"domains": DELETE, "migrate_pipeline": "!=0.3, >0.3.9"}, A),
    Case("a typo in a key", {"licence": "MIT"}, R),
    Case("format 2", {"format": 2}, R),
    Case("no prefix", {"prefix": DELETE}, R),
    Case("a lower-case prefix", {"prefix": "pk"}, R),
    Case("a name with a space", {"name": "p k"}, R),
    Case("no migrate_pipeline", {"migrate_pipeline": DELETE}, R),
    Case("a malformed range", {"migrate_pipeline": "~0.4"}, R),
    Case("a range excluding this release", {"migrate_pipeline": ">=99"}, R, A),
    Case("a domain without a title", {"domains": [{"name": "pk_runtime"}]}, R),
    Case("a typo in a domain", {"domains": [{"name": "pk_runtime", "title": "t", "titel": "t"}]}, R),
    Case("a domain with capitals", {"domains": [{"name": "PK", "title": "t"}]}, R),
    Case("a plugin's domain declared", {"domains": [{"name": "pk_runtime", "title": "t"},
                                                    {"name": "device", "title": "t"}]}, R, A),
    Case("domains as a mapping", {"domains": Replace({"pk_runtime": "t"})}, R),
]


def pack_verdict(cli, work, data):
    """`plugins --rule-pack DIR` loads the pack, with its rule files, and runs nothing: 0 when it
    loads, 4 with the pack's problems when it does not."""
    pack = os.path.join(work, "pack")
    os.makedirs(os.path.join(pack, "rules"), exist_ok=True)
    with open(os.path.join(pack, "pack.yaml"), "w", encoding="utf-8") as f:
        f.write(dump_yaml(data))
    with open(os.path.join(pack, "rules", "device.yaml"), "w", encoding="utf-8") as f:
        f.write(PACK_RULES)
    # The rule of the declared domain only while the pack declares it.
    new_domain = os.path.join(pack, "rules", "runtime.yaml")
    declared = isinstance(data.get("domains"), list) and any(
        isinstance(d, dict) and d.get("name") == "pk_runtime" for d in data["domains"])
    if declared:
        with open(new_domain, "w", encoding="utf-8") as f:
            f.write(PACK_RULES_NEW_DOMAIN)
    elif os.path.exists(new_domain):
        os.remove(new_domain)
    code, _, err = run(cli, ["plugins", "--rule-pack", pack], work)
    if code not in (0, 4) or (code == 4 and "pack.yaml" not in err):
        return None, f"`plugins --rule-pack` exited {code}: {err}", None
    return (A if code == 0 else R), err, None


def check_cases(s, cli, work, kind, base, cases, verdict):
    counts = {A: 0, R: 0}
    for case in cases:
        data = merged(base, case.change)
        loader, message, dumped = verdict(cli, work, data)
        if loader is None:
            fail(f"{kind} case '{case.name}': {message}")
            continue
        errors = s.errors(kind, data)
        schema = R if errors else A
        text = dump_yaml(data).strip().replace("\n", "\n    ")
        if loader != case.loader:
            fail(f"{kind} case '{case.name}': the loader should {case.loader} it but did not"
                 f"{(' (' + message + ')') if message else ''}\n    {text}")
        if schema != case.schema:
            detail = ("; ".join(errors)) if errors else "no error"
            fail(f"{kind} case '{case.name}': {SCHEMAS[kind]} should {case.schema} it but did not ({detail})"
                 f"{' — the loader ' + loader + 's it' if loader == case.loader else ''}\n    {text}")
        if dumped is not None:
            for e in s.errors(kind, load_yaml(dumped)):
                fail(f"{kind} case '{case.name}': `config dump` output does not validate: {e}")
        counts[loader] += 1
    print(f"in-step: {len(cases)} {kind} cases through the CLI (the loader accepted {counts[A]}, "
          f"refused {counts[R]})")


def check_in_step(s, cli, source):
    check_loader_lists(s, source)
    with tempfile.TemporaryDirectory(prefix="schemas-") as work:
        os.mkdir(os.path.join(work, "project"))
        os.mkdir(os.path.join(work, "repo"))
        with open(os.path.join(work, "repos.csv"), "w", encoding="utf-8") as f:
            f.write("name,source,ref\nb,repo,main\n")
        # Every shipped pipeline's effective form validates.
        for path in sorted(glob.glob(os.path.join(source, "pipelines", "*.yaml"))):
            with open(path, encoding="utf-8") as f:
                if classify(load_yaml(f.read())) != "pipeline":
                    continue
            code, out, err = run(cli, ["config", "dump", path], work)
            if code != 0:
                fail(f"`config dump {rel(source, path)}` exited {code}: {err}")
                continue
            for e in s.errors("pipeline", load_yaml(out)):
                fail(f"`config dump {rel(source, path)}` does not validate against pipeline.schema.json: {e}")
        # Every shipped fleet manifest loads.
        for path in sorted(glob.glob(os.path.join(source, "pipelines", "*.yaml"))):
            with open(path, encoding="utf-8") as f:
                if classify(load_yaml(f.read())) != "fleet":
                    continue
            code, _, err = run(cli, ["fleet", "run", path, "--output", os.path.join(work, "fleet-out"),
                                     "--only", PROBE], work)
            if f"--only {PROBE}" not in err:
                fail(f"the fleet loader refuses {rel(source, path)} (exit {code}): {err}")
        # The schema's defaults are the loader's: a pipeline that sets nothing else.
        minimal = merged(PIPELINE_BASE, {"targets": {"lab": {"host": "h"}},
                                         "verify": {"precision": [{"name": "p", "command": "c", "outputs": "x"}]}})
        loader, message, dumped = pipeline_verdict(cli, work, minimal)
        if loader != A:
            fail(f"the minimal pipeline is refused: {message}")
        else:
            check_defaults(s.docs["pipeline"], load_yaml(dumped), minimal)
            print(f"in-step: {len(DEFAULTS_COMPARED)} defaults of pipeline.schema.json equal `config dump`'s values")
        check_cases(s, cli, work, "pipeline", PIPELINE_BASE, PIPELINE_CASES, pipeline_verdict)
        fleet_base = {"format": 1, "pipeline": os.path.join(source, "pipelines", "full.yaml"),
                      "repos": [{"name": "a", "source": "repo"}]}
        check_cases(s, cli, work, "fleet", fleet_base, FLEET_CASES, fleet_verdict)
        check_cases(s, cli, work, "pack", PACK_BASE, PACK_CASES, pack_verdict)
        check_rule_cases(s, cli, work)


# Rule files: what rule_loader.cpp accepts and refuses, checked against the schema and, as a
# rule pack's file, through the CLI (the custom match aside, which a pack refuses).
RULE_BASE = {
    "id": "TST-001",
    "title": "a synchronize call",
    "message": "{api} found",
    "match": {"api": ["torch.cuda.synchronize"]},
    "npu_alternative": "torch.npu.synchronize",
    "confidence": "high",
    "difficulty": "low",
    "effort_days": 0.1,
    "tests": {"invalid": ["import torch\ntorch.cuda.synchronize()\n"],
              "valid": ["import torch\ntorch.npu.synchronize()\n"]},
}

RULE_CASES = [
    Case("the base rule", {}, A),
    Case("every api key", {"match": Replace({"api": ["torch.cuda.*", {"name": "torch.cuda.Stream", "npu": "torch.npu.Stream",
                                                             "note": "n"}],
                                     "calls_only": True, "role": "base_class", "result_use": ["subscript", "iterate"],
                                     "result_attributes": "major"}),
                           "fix": {"replace_api": True}, "severity": "error"}, A),
    Case("a method match with args", {"match": Replace({"method": ["cuda"], "args": {"index": 0, "kind": "int",
                                                                              "regex": "^0$"}}),
                                      "fix": {"rename": {"from": "cuda", "to": "npu"}}}, A),
    Case("a string match with every position",
         {"match": Replace({"string": {"regex": "^cuda$", "fstring": False,
                               "where": [{"keyword": ["device"], "callee": ["torch.load"]}, {"arg_of": ["torch.device"]},
                                         {"method_arg_of": ["to"]}, {"compare": True}, {"assign_to": "(?i)device"},
                                         {"subscript_of": ["os.environ"]}, {"returned": True}]}})}, A),
    Case("a keyword match", {"match": Replace({"keyword": {"name": "pin_memory",
                                                                                 "value": "^True$"}})}, A),
    Case("an import match", {"match": Replace({"import": ["pynvml"]})}, A),
    Case("a custom match", {"match": Replace({"custom": "a requirement line"})}, A),
    Case("long-form snippets", {"tests": {"invalid": [{"code": "x", "file": "requirements.txt",
                                                       "files": {"setup.py": "y"}, "count": 1, "lines": [1]}],
                                          "valid": ["z"]}}, A),
    Case("an API with no NPU counterpart", {"no_npu_counterpart": True}, A),
    Case("no_npu_counterpart with yes/no", {"no_npu_counterpart": "no"}, A),
    Case("no_npu_counterpart as a word", {"no_npu_counterpart": "always"}, R),
    Case("a typo in a rule key", {"effort_day": 1}, R),
    Case("a typo in an api match", {"match": Replace({"api": ["a"], "call_only": True})}, R),
    Case("an unknown confidence", {"confidence": "certain"}, R),
    Case("an unknown severity", {"severity": "fatal"}, R),
    Case("a negative effort", {"effort_days": -1}, R),
    Case("effort as a word", {"effort_days": "one"}, R),
    Case("no id", {"id": DELETE}, R),
    Case("two match kinds", {"match": Replace({"api": ["a"], "import": ["b"]})}, R),
    Case("no match kind", {"match": Replace({"calls_only": True})}, R),
    Case("an empty api list", {"match": Replace({"api": []})}, R),
    Case("a star inside an api name", {"match": Replace({"api": ["torch.*.synchronize"]})}, R),
    Case("args of an api match", {"match": Replace({"api": ["a"], "args": {"index": 0, "regex": "^rank$"}})}, A),
    Case("args of an api match with index and keyword", {"match": Replace({"api": ["a"], "args": {"index": 0, "keyword": "d"}})}, R),
    Case("dict_keys of a keyword match", {"match": Replace({"keyword": {"name": ["load_in_8bit"], "dict_keys": True}})}, A),
    Case("a narrowing regex in a string position", {"match": Replace({"string": {"regex": "x", "where": [{"arg_of": ["*"], "regex": "^x$"}]}})}, A),
    Case("compare: kept", {"match": Replace({"string": {"regex": "x", "where": [{"compare": "kept"}]}})}, A),
    Case("args with index and keyword", {"match": Replace({"method": ["to"], "args": {"index": 0, "keyword": "device"}})}, R),
    Case("absent args with index and keyword", {"match": Replace({"api": ["a"], "args": {"index": 1, "keyword": "device",
                                                                                         "absent": True}})}, A),
    Case("absent args with a kind", {"match": Replace({"api": ["a"], "args": {"keyword": "device", "absent": True,
                                                                               "kind": "string"}})}, R),
    Case("or_absent args with a regex", {"match": Replace({"api": ["a"], "args": {"keyword": "cuda", "regex": "^True$",
                                                                                  "or_absent": True}})}, A),
    Case("or_absent args with index and keyword", {"match": Replace({"api": ["a"], "args": {"index": 2, "keyword": "cuda",
                                                                                            "kind": "bool",
                                                                                            "or_absent": True}})}, A),
    Case("or_absent args without kind or regex", {"match": Replace({"api": ["a"], "args": {"keyword": "cuda",
                                                                                           "or_absent": True}})}, R),
    Case("or_absent and absent together", {"match": Replace({"api": ["a"], "args": {"keyword": "cuda", "absent": True,
                                                                                    "regex": "^True$",
                                                                                    "or_absent": True}})}, R),
    Case("an unknown value kind", {"match": Replace({"method": ["to"], "args": {"index": 0, "kind": "tensor"}})}, R),
    Case("an unknown role", {"match": Replace({"api": ["a"], "role": "callee"})}, R),
    Case("an unknown result use", {"match": Replace({"api": ["a"], "result_use": ["call"]})}, R),
    Case("a position with two kinds", {"match": Replace({"string": {"regex": "x", "where": [{"arg_of": ["f"],
                                                                                      "compare": True}]}})}, R),
    Case("compare: false", {"match": Replace({"string": {"regex": "x", "where": [{"compare": False}]}})}, R),
    Case("callee without keyword", {"match": Replace({"string": {"regex": "x", "where": [{"arg_of": ["f"],
                                                                                   "callee": ["g"]}]}})}, R),
    Case("a string match without regex", {"match": Replace({"string": {"fstring": True}})}, R),
    Case("replace_api on a method match", {"match": Replace({"method": ["cuda"]}), "fix": {"replace_api": True}}, R),
    Case("both fixes", {"fix": {"replace_api": True, "rename": {"from": "a", "to": "b"}}}, R),
    Case("a rename from nothing", {"fix": {"rename": {"from": "", "to": "b"}}}, R),
    Case("a snippet without code", {"tests": {"invalid": [{"count": 1}], "valid": ["x"]}}, R),
    Case("a typo in tests", {"tests": {"invalid": ["x"], "valid": ["y"], "valdi": ["z"]}}, R),
]


def rule_verdict(cli, work, doc):
    """The rule file `doc` in a pack (prefix TST, declaring the domain `testing`) loaded by
    `plugins --rule-pack DIR`: the rule loader's verdict, plus a pack's own checks (snippets
    required, no custom match), which the cases avoid."""
    pack = os.path.join(work, "rule-case-pack")
    os.makedirs(os.path.join(pack, "rules"), exist_ok=True)
    with open(os.path.join(pack, "pack.yaml"), "w", encoding="utf-8") as f:
        f.write(dump_yaml({"format": 1, "name": "rule-cases", "version": "1", "prefix": "TST",
                           "migrate_pipeline": ">=0.1", "domains": [{"name": "testing", "title": "T"}]}))
    with open(os.path.join(pack, "rules", "case.yaml"), "w", encoding="utf-8") as f:
        f.write(dump_yaml(doc))
    code, _, err = run(cli, ["plugins", "--rule-pack", pack], work)
    if code not in (0, 4) or (code == 4 and "case.yaml" not in err):
        return None, f"`plugins --rule-pack` exited {code}: {err}"
    return (A if code == 0 else R), err


def check_rule_cases(s, cli, work):
    through_cli = 0
    cases = [(case.name, {"format": 1, "domain": "testing", "rules": [merged(RULE_BASE, case.change)]},
              case.loader, case.schema) for case in RULE_CASES]
    cases += [(name, merged({"format": 1, "domain": "testing", "rules": [RULE_BASE]}, change), R, R)
              for change, name in (({"format": 2}, "format 2"), ({"domain": DELETE}, "no domain"),
                                   ({"rule": []}, "a typo in a top-level key"))]
    for name, doc, loader_expected, schema_expected in cases:
        errors = s.errors("rules", doc)
        verdict = R if errors else A
        if verdict != schema_expected:
            fail(f"rules case '{name}': rule_loader.cpp would {loader_expected} it, rules.schema.json should "
                 f"{schema_expected} it but did not ({'; '.join(errors) or 'no error'})")
        if "custom" in json.dumps(doc.get("rules", [{}])[0].get("match", {})):
            continue  # a pack refuses custom matches (it has no code); the rule loader takes them
        loader, message = rule_verdict(cli, work, doc)
        if loader is None:
            fail(f"rules case '{name}': {message}")
        elif loader != loader_expected:
            fail(f"rules case '{name}': the rule loader should {loader_expected} it but did not"
                 f"{(' (' + message + ')') if message else ''}")
        else:
            through_cli += 1
    print(f"in-step: {len(cases)} rule-file cases checked against the schema, {through_cli} of them also "
          "through the CLI (a rule pack's file, loaded by `plugins --rule-pack`)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", help="the migrate-pipeline executable (for --check in-step)")
    ap.add_argument("--source", required=True, help="the source tree (docs/schemas, pipelines, plugins)")
    ap.add_argument("--check", choices=["well-formed", "shipped", "in-step", "all"], default="all")
    args = ap.parse_args()
    source = os.path.abspath(args.source)
    s = Schemas(source)
    if args.check in ("well-formed", "all"):
        check_well_formed(s)
    if args.check in ("shipped", "all"):
        check_shipped(s, source)
    if args.check in ("in-step", "all"):
        if not args.cli or not os.access(args.cli, os.X_OK):
            ap.error("--check in-step needs --cli PATH to the migrate-pipeline executable")
        check_in_step(s, os.path.abspath(args.cli), source)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("all schema checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
