"""Every public function of the package is typed and documented with an example, and listed in
docs/python.md."""

from __future__ import annotations

import inspect

import vzplan
from conftest import ROOT


def test_public_functions_have_types_docstrings_and_examples():
    reference = (ROOT / "docs" / "python.md").read_text()
    for name in vzplan.__all__:
        obj = getattr(vzplan, name)
        if not inspect.isfunction(obj):
            continue
        doc = inspect.getdoc(obj) or ""
        assert "Example" in doc, f"{name}: no example in its docstring"
        sig = inspect.signature(obj)
        assert sig.return_annotation is not inspect.Signature.empty, f"{name}: no return type"
        for p in sig.parameters.values():
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                assert p.annotation is not inspect.Parameter.empty, f"{name}({p.name}): no type"
        assert f"`vzplan.{name}(" in reference, f"{name}: not in docs/python.md"
    for name in ("Report", "VirtualiZarrParser", "FindingWarning", "VzplanError"):
        assert f"`vzplan.{name}`" in reference, name
