"""The packages' layers hold: import-linter's contracts in pyproject.toml
(each package imports only those below it; no modules import each other in
a circle, at any depth), and every package of tilesat has its place in them."""

import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import tilesat

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def test_import_contracts_are_kept():
    run = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                          "sys.exit(lint_imports_command())", "--no-cache", str(ROOT / "pyproject.toml")],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def test_the_contracts_make_no_exception():
    """No import is let through: the front ends call the library, nothing calls up (issue 28)."""
    assert [c["name"] for c in CONFIG["contracts"] if c.get("ignore_imports")] == []


def test_every_package_has_a_layer():
    layers = next(c for c in CONFIG["contracts"] if c["type"] == "layers")["layers"]
    named = {name.strip() for layer in layers for name in layer.split("|")}
    top = {f"tilesat.{m.name}" for m in pkgutil.iter_modules(tilesat.__path__) if m.name != "__main__"}
    assert top == named, f"not in a layer: {sorted(top - named)}; layers naming nothing: {sorted(named - top)}"


def test_every_package_says_what_it_owns_and_may_import():
    for m in pkgutil.iter_modules(tilesat.__path__):
        if m.ispkg:
            doc = (Path(tilesat.__path__[0]) / m.name / "__init__.py").read_text()
            assert doc.startswith('"""') and "import" in doc.split('"""')[1], f"tilesat.{m.name}: no docstring saying what it may import"


#: Functions numba compiles: they take flat arrays, not objects.
MANY_PARAMETERS_ALLOWED = {
    ("tilesat/engines/enumerator.py", "_search"), ("tilesat/engines/enumerator.py", "_search1"),
    ("tilesat/engines/enumerator.py", "_grow"), ("tilesat/engines/frontier_jit.py", "step"),
}


def test_no_function_takes_more_than_eight_parameters():
    """Options travel as objects (SatOptions, the requests, the command line's groups), not as long lists."""
    import ast

    src = Path(tilesat.__path__[0])
    found = []
    for path in sorted(src.rglob("*.py")):
        where = str(path.relative_to(src.parent))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
                if names[:1] in (["self"], ["cls"]):
                    names = names[1:]
                count = len(names) + (args.vararg is not None) + (args.kwarg is not None)
                name = getattr(node, "name", "lambda")
                if count > 8 and (where, name) not in MANY_PARAMETERS_ALLOWED:
                    found.append(f"{where}:{node.lineno} {name}: {count} parameters")
    assert not found, "\n".join(found)
