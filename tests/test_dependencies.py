"""Every declared runtime dependency is used by the package."""

from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions

from tests.support.paths import ROOT

DATA_ONLY = {"tzdata"}  # read by zoneinfo, never imported


def _imported_modules() -> set[str]:
    found: set[str] = set()
    for package in ("digest", "bot", "config"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.add(node.module.split(".")[0])
    return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_declared_dependency_is_imported() -> None:
    """No dependency in pyproject.toml is installed for nothing (data-only packages aside)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = {
        _normal(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in project["dependencies"]
    }
    distributions = packages_distributions()
    used = {_normal(d) for module in _imported_modules() for d in distributions.get(module, [])}
    assert sorted(declared - used - DATA_ONLY) == []
