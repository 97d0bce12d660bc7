"""Every rule of the rules index is checked by a test that names it by its own ID.

tests/rule_ids.txt holds the index's rule IDs (the index itself, ../shared/spec/rules-index.md beside the
repository, may be absent, as on a CI clone). A rule counts as cited when its ID appears by its own name in a
test module outside the module's docstring — in a test's name (test_city_090_..., test_open_7_...) or in a
docstring or comment — and not only as the start of a range (AREA-010..040) or inside a list written with
slashes (AREA-010/020), which a search for the one ID would not find.

Regenerate tests/rule_ids.txt after the index changes (from the repository root):
    .venv/bin/python -m tests.test_rule_ids [path/to/rules-index.md]
"""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
COPY = TESTS / "rule_ids.txt"
#: The index beside the repository (override with KINGDOMS_RULES_INDEX=path).
INDEX = Path(os.environ.get("KINGDOMS_RULES_INDEX") or ROOT.parent / "shared" / "spec" / "rules-index.md")

_INDEX_LINE = re.compile(r"^([A-Z]+)-(\d+) —", re.M)
#: An ID by its own name: not the start of a range ("..") and not part of a slash list ("/" on either side).
_CITED = re.compile(r"(?<![\w/])([A-Z]+)-(\d+)(?![\w/]|\.\.)")


def _norm(area: str, number: str) -> str:
    """AREA-NNN as the index writes it: three digits, except the open questions (OPEN-7)."""
    return f"OPEN-{int(number)}" if area == "OPEN" else f"{area}-{int(number):03d}"


def index_ids(text: str) -> list[str]:
    """The rule IDs an index text defines, in its order (one `AREA-NNN — statement` line each)."""
    return [_norm(a, n) for a, n in _INDEX_LINE.findall(text)]


def cited_ids(source: str, areas: set[str]) -> set[str]:
    """IDs of `areas` a test module's source cites by their own names (its module docstring aside)."""
    tree = ast.parse(source)
    doc = ast.get_docstring(tree, clean=False)
    body = source.replace(doc, "", 1) if doc else source
    out = {_norm(a, n) for a, n in _CITED.findall(body) if a in areas}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            area = None
            for word in node.name.split("_")[1:]:  # test_city_340_050_land -> CITY-340, CITY-050
                if word.upper() in areas:
                    area = word.upper()
                elif area is not None and word.isdigit():
                    out.add(_norm(area, word))
                else:
                    area = None
    return out


def copied_ids() -> list[str]:
    """The IDs kept in tests/rule_ids.txt (comment lines start with #)."""
    lines = COPY.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_every_rule_id_is_cited_by_its_own_name_in_a_test() -> None:
    """Each rule ID of tests/rule_ids.txt is named, by itself, in at least one test module."""
    ids = copied_ids()
    areas = {i.split("-")[0] for i in ids}
    cited: set[str] = set()
    for path in sorted(TESTS.glob("test_*.py")):
        cited |= cited_ids(path.read_text(encoding="utf-8"), areas)
    missing = [i for i in ids if i not in cited]
    assert not missing, f"{len(missing)} rule IDs are cited by no test by their own name: {', '.join(missing)}"


def test_the_copy_of_the_rule_ids_is_the_index_s() -> None:
    """tests/rule_ids.txt lists exactly the index's IDs, in its order (checked where the index is at hand)."""
    if not INDEX.is_file():
        pytest.skip(f"no rules index at {INDEX} (set KINGDOMS_RULES_INDEX to check the copy)")
    assert copied_ids() == index_ids(INDEX.read_text(encoding="utf-8")), (
        "tests/rule_ids.txt is out of date: run .venv/bin/python -m tests.test_rule_ids")


def test_the_citation_scan_skips_ranges_slash_lists_and_the_module_docstring() -> None:
    """The scan finds an ID named alone (in a name, a docstring or a comment), but not one only inside a range, a
    slash list or the module docstring."""
    source = '''"""Module summary: ZED-070 here does not count."""

def test_zed_010_020_something():
    """ZED-030 and ZED-100..140, ZED-150/160."""
    x = 1  # ZED-040, OPEN-7
'''
    assert cited_ids(source, {"ZED", "OPEN"}) == {"ZED-010", "ZED-020", "ZED-030", "ZED-040", "OPEN-7"}
    assert index_ids("ZED-010 — one.\nnot ZED-020 — here\nOPEN-07 — two.\n") == ["ZED-010", "OPEN-7"]


def write_copy(index: Path) -> int:
    """Write tests/rule_ids.txt from the index; returns how many IDs it holds."""
    ids = index_ids(index.read_text(encoding="utf-8"))
    head = ["# Rule IDs of the rules index (../shared/spec/rules-index.md), one a line, in its order.",
            "# tests/test_rule_ids.py checks that every one is cited by its own name in a test.",
            "# Regenerate after the index changes: .venv/bin/python -m tests.test_rule_ids [path/to/rules-index.md]"]
    COPY.write_text("\n".join(head + ids) + "\n", encoding="utf-8")
    return len(ids)


if __name__ == "__main__":
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else INDEX
    print(f"wrote {write_copy(source)} rule IDs from {source} to {COPY}")
