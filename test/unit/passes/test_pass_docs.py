"""docs/passes.md is generated from the pass docstrings and must not go stale."""

from __future__ import annotations

import inspect

from syncopate.passes import PASSES, get_all_passes
from syncopate.tools import gen_pass_docs


def _our_passes():
    passes = get_all_passes()
    for name in PASSES:
        yield passes[name]()


def test_passes_md_is_current():
    assert gen_pass_docs.DOC.read_text() == gen_pass_docs.render(), (
        "docs/passes.md is stale: run python -m syncopate.tools.gen_pass_docs")


def test_check_flag_reports_staleness(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "passes.md"
    stale.write_text("old\n")
    monkeypatch.setattr(gen_pass_docs, "DOC", stale)
    assert gen_pass_docs.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert gen_pass_docs.main([]) == 0
    assert gen_pass_docs.main(["--check"]) == 0


def test_every_pass_states_assumptions_and_guarantees():
    passes = list(_our_passes())
    assert len(passes) == len(PASSES)
    for pass_class in passes:
        doc = inspect.cleandoc(pass_class.__doc__ or "")
        summary = doc.partition("\n")[0].strip()
        assert summary, f"{pass_class.name}: empty summary line"
        assert "ssume" in doc and "uarantee" in doc, f"{pass_class.name}: docstring lacks assumes/guarantees"
        assert f"## `{pass_class.name}`" in gen_pass_docs.render()


def test_registry_names_match_the_pass_classes():
    """The registry names each pass without importing it; the name it files a
    pass under must be the one the class answers to (``-p`` and --help use it)."""
    for name, factory in get_all_passes().items():
        assert factory().name == name


def test_every_option_of_every_pass_has_a_help_line():
    """As MLIR's Passes.td: docs/passes.md and overlap-opt --help show it."""
    from syncopate.passes.option_help import help_of, options_of

    missing = [f"{p.name}.{f.name}" for p in _our_passes() for f in options_of(p) if not help_of(f.name)]
    assert missing == [], f"options without help (passes/option_help.py): {missing}"
    rendered = gen_pass_docs.render()
    assert help_of("hoist_loops") in rendered and "| option | type | default | meaning |" in rendered
