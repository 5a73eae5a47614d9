"""The house holds its floors: the layering contract (.importlinter: the floors, and no circle
between siblings at any depth) is kept, no module of sors reaches itself back through any
chain of imports (a circle anywhere is a bug), and no module of sors grows past 400 lines
(the migrations excepted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    imported = graph.find_modules_directly_imported_by(child)
                    work.append((child, iter(sorted(imported))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        members.append(m)
                        if m == node:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))
    return found


def _too_long(package: Path, limit: int = MAX_LINES) -> list[str]:
    """`path: N lines` for every module under `package` longer than `limit` lines, the
    migrations (migrations/versions) excepted."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[:2] == ("migrations", "versions"):
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{path.relative_to(package.parent)}: {lines} lines")
    return found


def test_no_module_of_sors_imports_itself_back() -> None:
    graph = grimp.build_graph("sors", cache_dir=None)
    assert _circles(graph) == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for m in ("p.a", "p.b", "p.c", "p.d"):
        graph.add_module(m)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    graph.add_import(importer="p.c", imported="p.a")
    graph.add_import(importer="p.d", imported="p.a")
    assert _circles(graph) == [["p.a", "p.b", "p.c"]]


def test_the_layering_contract_is_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:]


def test_no_module_past_400_lines() -> None:
    too_long = _too_long(ROOT / "sors")
    assert too_long == [], "split these modules (at most 400 lines each):\n" + "\n".join(too_long)


def test_the_length_check_finds_a_long_module(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "migrations" / "versions").mkdir(parents=True)
    (package / "inner").mkdir()
    (package / "short.py").write_text("x = 1\n" * 400)
    (package / "inner" / "long.py").write_text("x = 1\n" * 401)
    (package / "migrations" / "versions" / "0001_big.py").write_text("x = 1\n" * 900)
    assert _too_long(package) == ["pkg/inner/long.py: 401 lines"]
