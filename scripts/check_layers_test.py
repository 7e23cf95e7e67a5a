#!/usr/bin/env python3
"""Tests of check_layers.py on small planted trees: a clean one passes, and each kind of
violation (an include up the layers, another module's internal header, a public header
leaking an internal one, an unowned public header, a table that disagrees) fails with
its file:line."""
import os
import subprocess
import sys
import tempfile
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layers.py")

LAYERS = """# module | public | may include
low  | gpusweep/low.h low/api.h |
high | gpusweep/high.h          | low
tests |                         | *
"""
TABLE = """| module | directory | may include | does |
|---|---|---|---|
| low | `src/low` | nothing; libc | x |
| high | `src/high` | low (its API) | y |
"""


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write("src/layers.txt", LAYERS)
        self.write("ARCHITECTURE.md", TABLE)
        self.write("include/gpusweep/low.h", "#pragma once\n")
        self.write("include/gpusweep/high.h", '#include "gpusweep/low.h"\n')
        self.write("src/low/api.h", "#pragma once\n")
        self.write("src/low/detail.h", "#pragma once\n")
        self.write("src/low/low.cc", '#include "low/api.h"\n#include "detail.h"\n#include "low/detail.h"\n')
        self.write("src/high/high.cc", '#include "gpusweep/low.h"\n#include "low/api.h"\n#include <vector>\n')
        self.write("src/high/high_test.cc", '#include "low/detail.h"\n')
        self.write("tests/e2e_test.cc", '#include "high/anything.h"\n#include "low/detail.h"\n')

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def check(self):
        run = subprocess.run([sys.executable, CHECKER, self.root], capture_output=True, text=True)
        return run.returncode, run.stdout + run.stderr

    def assertFailsWith(self, *expected):
        code, out = self.check()
        self.assertEqual(code, 1, out)
        for text in expected:
            self.assertIn(text, out)

    def test_a_clean_tree_passes(self):
        self.assertEqual(self.check(), (0, ""))

    def test_an_include_up_the_layers_fails(self):
        self.write("src/low/low.cc", '#include "low/api.h"\n#include "gpusweep/high.h"\n')
        self.assertFailsWith('src/low/low.cc:2: low includes "gpusweep/high.h" (high), but low may include only nothing')

    def test_another_modules_internal_header_fails_outside_tests(self):
        self.write("src/high/high.cc", '#include "low/detail.h"\n')
        self.assertFailsWith("src/high/high.cc:1:", "low's internal header", "low/api.h")

    def test_a_public_header_including_an_internal_one_fails(self):
        self.write("src/low/api.h", '#include "low/detail.h"\n')
        self.assertFailsWith("src/low/api.h:1: public header includes low's internal")
        self.write("include/gpusweep/high.h", '#include "low/detail.h"\n')
        self.assertFailsWith("include/gpusweep/high.h:1:", "from a public header")

    def test_a_public_header_no_module_lists_fails(self):
        self.write("src/high/high.cc", '#include "gpusweep/nobody.h"\n')
        self.assertFailsWith('src/high/high.cc:1: "gpusweep/nobody.h" is listed by no module')

    def test_a_table_that_disagrees_with_the_data_fails(self):
        self.write("ARCHITECTURE.md", TABLE.replace("| low (its API) |", "| low, tests |"))
        self.assertFailsWith("ARCHITECTURE.md:4: high's row names ['low', 'tests'], src/layers.txt says ['low']")
        self.write("ARCHITECTURE.md", TABLE.replace("| low | `src/low` | nothing; libc | x |\n", ""))
        self.assertFailsWith("no row for module low")

    def test_a_directory_no_module_names_fails(self):
        self.write("src/extra/x.cc", '#include "low/api.h"\n')
        self.assertFailsWith("src/extra/x.cc: its directory is no module of src/layers.txt")

    def test_adding_a_module_is_one_line(self):
        self.write("src/extra/x.cc", '#include "low/api.h"\n')
        self.write("src/layers.txt", LAYERS + "extra | | low\n")
        self.write("ARCHITECTURE.md", TABLE + "| extra | `src/extra` | low | z |\n")
        self.assertEqual(self.check(), (0, ""))


if __name__ == "__main__":
    unittest.main()
