#!/usr/bin/env python3
"""check_layers.py ROOT: fails on any #include "..." that runs up gpusweep's layers.

The layers are data in ROOT/src/layers.txt (ARCHITECTURE.md, "Layers and what may
depend on what", shows the same table; this script checks that the two agree). A file
belongs to the module whose directory holds it (src/<module>/, tests/, bench/, fuzz/;
include/gpusweep/x.h to the module listing it as public). It may include:
  - any header of its own module;
  - a public header of a module it may include (its "may include" column, direct);
  - one listed header ("gpusweep/config.h": a module's header-only structs);
  - test code (*_test.cc, *test_util*, *for_tests*, *fixture*, *harness*, fake_*) also
    the internal headers of those modules (white-box tests of what they use);
  - "*" in "may include": every module, internal headers too (tests/, bench/, fuzz/).
A public header may include only public headers (its includers see what it includes).
Exit 0 when clean; 1 with one line per violation (file:line: what, what to do).
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
TEST_MARKS = ("_test.cc", "test_util", "for_tests", "fixture", "harness", "fake_")
SOURCE_ROOTS = ("src", "include", "tests", "bench", "fuzz")
EXTENSIONS = (".h", ".hpp", ".cc", ".cpp")


def read_layers(path):
    """{module: (public headers, may-include entries)} in file order."""
    layers = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cells = [c.strip() for c in line.split("|")]
            if len(cells) != 3 or not cells[0]:
                sys.exit(f"{path}:{number}: want 'module | public headers | may include'")
            layers[cells[0]] = (set(cells[1].split()), cells[2].split())
    return layers


def check_table(layers, architecture):
    """ARCHITECTURE.md's table names, for each module, exactly the modules it may include."""
    problems = []
    rows = {}
    with open(architecture, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = re.match(r"^\| (\w+) \| [^|]* \| ([^|]*) \|", line)
            if m and m.group(1) in layers:
                rows[m.group(1)] = (number, m.group(2))
    for module, (_, may) in layers.items():
        if module not in rows:
            if "*" not in may:
                problems.append(f"{architecture}: no row for module {module} (src/layers.txt has one)")
            continue
        number, cell = rows[module]
        # The modules it names before any parenthesis or ';' (third-party libraries follow).
        named = {w for w in re.findall(r"\b(\w+)\b", re.sub(r"\([^)]*\)", "", cell).split(";")[0])
                 if w in layers}
        listed = {e for e in may if e in layers}
        if named != listed:
            problems.append(f"{architecture}:{number}: {module}'s row names {sorted(named)}, "
                            f"src/layers.txt says {sorted(listed)}; make them the same")
    return problems


def module_of(rel, layers, owners):
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "include":
        return owners.get("/".join(parts[1:]))
    return parts[0]


def owner_of(included, rel, root, layers, owners):
    """The module a quoted include names (None: not a gpusweep header)."""
    if included in owners:
        return owners[included]
    if included.startswith("gpusweep/"):
        return "?"  # a public header no module lists
    first = included.split("/", 1)[0]
    if "/" in included and first in layers and os.path.isdir(os.path.join(root, "src", first)):
        return first
    if os.path.exists(os.path.join(root, os.path.dirname(rel), included)):
        return module_of(rel, layers, owners)  # beside the includer
    return None


def is_test(rel):
    return any(mark in os.path.basename(rel) for mark in TEST_MARKS)


def check_include(rel, number, included, root, layers, owners):
    module = module_of(rel, layers, owners)
    if module is None:
        return f"{rel}: no module lists it as public in src/layers.txt; add it to one"
    if module not in layers:
        return f"{rel}: its directory is no module of src/layers.txt; add a line for it"
    owner = owner_of(included, rel, root, layers, owners)
    if owner is None:
        return None
    if owner == module:
        # A public header's includers see what it includes: only public headers there.
        as_included = rel[len("src/"):] if rel.startswith("src/") else rel[len("include/"):]
        resolved = included if "/" in included else os.path.join(os.path.dirname(as_included), included)
        if as_included in layers[module][0] and resolved not in layers[module][0]:
            return (f"{rel}:{number}: public header includes {module}'s internal \"{included}\"; "
                    f"make that one public too in src/layers.txt, or keep it out of this header")
        return None
    if owner == "?":
        return f"{rel}:{number}: \"{included}\" is listed by no module in src/layers.txt; add it to one"
    public, may = layers[module]
    where = f"{rel}:{number}: {module} includes \"{included}\" ({owner}"
    internal = included not in layers[owner][0]
    if rel.startswith("include/") and internal:
        return f"{where}'s internal header) from a public header; include public headers only"
    if "*" in may or included in may:
        return None
    if owner not in may:
        return (f"{where}), but {module} may include only {' '.join(may) or 'nothing'} "
                f"(src/layers.txt, ARCHITECTURE.md): move the code down a layer, or pass "
                f"what it needs in from above")
    if internal and not is_test(rel):
        return (f"{where}'s internal header): use {owner}'s public headers "
                f"({' '.join(sorted(layers[owner][0])) or 'none'}), or make this one public "
                f"in src/layers.txt if it is {owner}'s API")
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    layers = read_layers(os.path.join(root, "src", "layers.txt"))
    owners = {}
    for module, (public, _) in layers.items():
        for header in public:
            owners[header] = module
    problems = check_table(layers, os.path.join(root, "ARCHITECTURE.md"))
    for top in SOURCE_ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in ("corpus", "node_modules"))
            for name in sorted(filenames):
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m:
                            problem = check_include(rel, number, m.group(1), root, layers, owners)
                            if problem:
                                problems.append(problem)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) against the layers (src/layers.txt)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
