"""`make typecheck` is strict on exactly the modules that import no Django: a new pure module cannot
slip out of the strict list in pyproject.toml, and a strict module that starts importing Django is
noticed (it is no longer pure: take the import out, or take it off the list)."""

import ast
import functools
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Importing any of these (directly, or through one of our modules that does) makes a module not pure.
DJANGO_ROOTS = {"django", "rest_framework", "drf_spectacular", "django_htmx"}


def _mypy_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]


def _overrides(flag: str) -> set[str]:
    modules: set[str] = set()
    for override in _mypy_config()["overrides"]:
        if override.get(flag):
            listed = override["module"]
            modules |= {listed} if isinstance(listed, str) else set(listed)
    return modules


def _our_modules() -> dict[str, Path]:
    """Every module mypy checks (the packages of `files`), migrations left out."""
    modules = {}
    for package in _mypy_config()["files"]:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _imported(path: Path, module: str, modules: dict[str, Path]) -> set[str]:
    """The dotted names the module's import statements name (function-local ones too): `from a import b`
    names the module `a.b` when there is one, else `a`. As import-linter sees them, a submodule's import
    does not count as importing its package's __init__ (memorysite/__init__.py loads the Celery app)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                names.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return names


@functools.cache
def _imports_django() -> dict[str, bool]:
    """Per module: does importing it, or calling into it, import Django (through our modules too)?"""
    modules = _our_modules()
    imported = {module: _imported(path, module, modules) for module, path in modules.items()}
    impure = {module for module, names in imported.items() if any(name.split(".")[0] in DJANGO_ROOTS for name in names)}
    changed = True
    while changed:
        changed = False
        for module, names in imported.items():
            if module not in impure and names & impure:
                impure.add(module)
                changed = True
    return {module: module in impure for module in modules}


def _pure_modules() -> set[str]:
    """Modules importing no Django, package __init__ files and apps.py (AppConfigs) left out."""
    paths = _our_modules()
    return {
        module
        for module, imports in _imports_django().items()
        if not imports and paths[module].name not in {"__init__.py", "apps.py"}
    }


def test_it_is_strict_on_every_module_that_imports_no_django():
    strict = _overrides("disallow_untyped_defs")
    pure = _pure_modules()
    missing = sorted(pure - strict)
    assert not missing, f"pure modules missing from the strict block of [tool.mypy] in pyproject.toml: {missing}"


def test_every_strict_module_is_pure():
    strict = _overrides("disallow_untyped_defs")
    impure = sorted(strict - _pure_modules())
    assert not impure, f"listed as strict but import Django (or are gone): {impure}"


def test_no_strict_module_has_its_errors_ignored():
    assert not _overrides("disallow_untyped_defs") & _overrides("ignore_errors")


def test_it_sees_django_through_our_own_modules():
    imports = _imports_django()
    assert imports["ledger.models"]  # django directly
    assert imports["agentcontext.selectors"]  # only through ledger's models
    assert not imports["ledger.materializer"]


def test_the_import_contract_for_pure_modules_covers_only_strict_modules():
    """The design's pure modules (import-linter's `pure` contract: no framework, database or network
    library) are a subset of mypy's strict list; the strict list adds modules that do I/O without Django."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (pure_contract,) = [contract for contract in contracts if contract["id"] == "pure"]
    assert set(pure_contract["source_modules"]) <= _overrides("disallow_untyped_defs")
