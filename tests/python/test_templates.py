"""The templates render to valid, pyflakes-clean Python for every subset of sections."""

import ast
import itertools
import os
import py_compile
import re
import subprocess
import tempfile
import unittest

import render
import support

OPS_API = {
    "op_flash_attn": ("flash_attn_func", "flash_attn_varlen_func", "flash_attn_qkvpacked_func",
                      "flash_attn_kvpacked_func", "flash_attn_varlen_qkvpacked_func",
                      "flash_attn_varlen_kvpacked_func"),
    "op_xformers": ("memory_efficient_attention", "LowerTriangularMask",
                    "LowerTriangularFromBottomRightMask"),
    "op_rms_norm": ("rms_norm", "RMSNorm"),
    "op_rotary": ("apply_rotary_emb",),
    "op_swiglu": ("swiglu",),
}
SHARED_API = ("on_npu",)
COMPAT_API = ("get_device", "to_device", "map_device", "is_npu_available", "autocast",
              "grad_scaler", "dist_backend", "map_backend", "init_process_group",
              "map_visible_devices", "ascend_visible_devices", "activate", "deactivate", "main")
TEMPLATES = ("npu_ops.py.mustache", "npu_compat.py.mustache")


def _header(text):
    """The leading comment block of a template."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return "\n".join(lines)


class TemplateStructure(unittest.TestCase):
    def test_ops_sections_are_the_operator_families(self):
        names = render.section_names(support.template_text("npu_ops.py.mustache"))
        self.assertEqual(names, list(support.OPS_SECTIONS))
        self.assertEqual(set(names), set(OPS_API))

    def test_compat_has_no_sections(self):
        self.assertEqual(render.section_names(support.template_text("npu_compat.py.mustache")), [])

    def test_header_documents_every_section_and_api(self):
        header = _header(support.template_text("npu_ops.py.mustache"))
        for section, names in OPS_API.items():
            self.assertIn(section, header)
        for api in ("flash_attn_func", "flash_attn_varlen_func", "memory_efficient_attention",
                    "npu_fusion_attention", "npu_rms_norm", "npu_rotary_mul", "npu_swiglu",
                    "apply_rotary_emb", "LowerTriangularMask"):
            self.assertIn(api, header)

    def test_only_the_allowed_tags(self):
        """Block sections alone on their line around top-level code; header variables only."""
        for name in TEMPLATES:
            text = support.template_text(name)
            lines = text.splitlines()
            for number, line in enumerate(lines):
                for tag in re.findall(r"\{\{[^}]*\}\}", line):
                    if re.fullmatch(r"\{\{[#/]\w+\}\}", tag):
                        self.assertEqual(line, tag, "%s:%d: section tag not alone on its line"
                                         % (name, number + 1))
                        following = next((ln for ln in lines[number + 1:] if ln.strip()), "")
                        self.assertFalse(following[:1].isspace(),
                                         "%s:%d: section boundary inside an indented block"
                                         % (name, number + 1))
                    else:
                        self.assertIn(tag, ("{{tool_version}}", "{{project}}", "{{sections}}"),
                                      name)
                        self.assertTrue(line.startswith("#"), "%s:%d: variable outside the "
                                        "header comment" % (name, number + 1))
            self.assertNotIn("{{{", text)

    def test_render_helper_refuses_what_it_cannot_render(self):
        with self.assertRaises(render.TemplateError):
            render.render("{{#a}}\n{{#b}}\n{{/b}}\n{{/a}}\n", ["a"])
        with self.assertRaises(render.TemplateError):
            render.render("x = 1  # {{^a}}\n")
        with self.assertRaises(render.TemplateError):
            render.render("{{#a}}\nx = 1\n", ["a"])
        with self.assertRaises(render.TemplateError):
            render.render("{{#a}}\n{{/a}}\n", ["b"])
        self.assertEqual(render.render("# {{v}}\n{{#a}}\nx = 1\n{{/a}}\ny = 2\n", [], {"v": "<"}),
                         "# <\ny = 2\n")  # verbatim, as the emit stage's renderer


class RenderedSubsets(unittest.TestCase):
    """Every subset of npu_ops' sections (32) plus npu_compat."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="npu_subsets_")
        cls.files = {}
        text = support.template_text("npu_ops.py.mustache")
        for size in range(len(support.OPS_SECTIONS) + 1):
            for subset in itertools.combinations(support.OPS_SECTIONS, size):
                label = "-".join(s[3:] for s in subset) or "none"
                directory = os.path.join(cls.tmp.name, label)
                os.mkdir(directory)
                path = os.path.join(directory, "npu_ops.py")
                with open(path, "w", encoding="utf-8") as handle:
                    variables = dict(support.VARIABLES, sections=" ".join(subset) or "none")
                    handle.write(render.render(text, subset, variables))
                cls.files[subset] = path
        cls.compat = support.render_to(cls.tmp.name, "npu_compat.py.mustache", "npu_compat")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def all_paths(self):
        return list(self.files.values()) + [self.compat]

    def test_subsets_rendered(self):
        self.assertEqual(len(self.files), 32)

    def test_py_compile(self):
        for path in self.all_paths():
            py_compile.compile(path, cfile=path + "c", doraise=True)

    def test_python38_grammar(self):
        """NPU hosts often run older Pythons: nothing newer than 3.8 syntax."""
        for path in self.all_paths():
            with open(path, encoding="utf-8") as handle:
                ast.parse(handle.read(), filename=path, feature_version=(3, 8))

    def test_pyflakes_clean(self):
        result = subprocess.run([support.PYTHON, "-m", "pyflakes"] + self.all_paths(),
                                capture_output=True, text=True)
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))

    def test_variables_substituted_in_header(self):
        with open(self.compat, encoding="utf-8") as handle:
            first = handle.readline()
        self.assertIn("0.0.0-test", first)
        self.assertIn("test-project <&>", first)

    def test_each_subset_defines_exactly_its_api(self):
        for subset, path in self.files.items():
            if len(subset) > 1 and len(subset) < len(support.OPS_SECTIONS):
                continue  # none, each single section, all
            module = support.load_module(path, "npu_ops_subset")
            for name in SHARED_API:
                self.assertTrue(hasattr(module, name), (subset, name))
            for section, names in OPS_API.items():
                for name in names:
                    self.assertEqual(hasattr(module, name), section in subset, (subset, name))

    def test_compat_api(self):
        module = support.load_module(self.compat, "npu_compat_api")
        for name in COMPAT_API:
            self.assertTrue(callable(getattr(module, name, None)), name)


if __name__ == "__main__":
    unittest.main()
