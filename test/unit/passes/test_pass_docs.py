"""docs/passes.md is generated from the pass docstrings and must not go stale."""

from __future__ import annotations

import dataclasses
import inspect

from xdsl.passes import ModulePass

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


def _options_without_help(pass_classes) -> list[str]:
    from syncopate.passes.option_help import help_of, options_of

    return [f"{p.name}.{f.name}" for p in pass_classes for f in options_of(p) if not help_of(f)]


def test_every_option_of_every_pass_has_a_help_line():
    """As MLIR's Passes.td: docs/passes.md and overlap-opt --help show it."""
    missing = _options_without_help(_our_passes())
    assert missing == [], f"options without help (passes/option_help.py or the field's metadata): {missing}"


def test_an_option_without_help_is_reported():
    """The completeness check above sees an option that neither the table
    nor its field documents (it would pass vacuously otherwise)."""

    @dataclasses.dataclass(frozen=True)
    class Undocumented(ModulePass):
        name = "undocumented"
        frobnicate: int = 0

        def apply(self, ctx, op):  # pragma: no cover - never run
            pass

    assert _options_without_help([Undocumented]) == ["undocumented.frobnicate"]


def _doc_section(docs: str, name: str) -> str:
    """The section of docs/passes.md about one pass."""
    return docs.split(f"\n## `{name}`\n", 1)[1].split("\n## ", 1)[0]


def _cli_section(catalogue: str, name: str) -> str:
    """The lines overlap-opt --help gives one pass: its summary line and
    the indented option lines under it."""
    lines = catalogue.splitlines()
    first = next(i for i, line in enumerate(lines) if line.split() and line.split()[0] == name and line[2] != " ")
    rest = lines[first + 1:]
    options = rest[:next((i for i, line in enumerate(rest) if not line.startswith("      ")), len(rest))]
    return "\n".join([lines[first], *options])


def test_every_option_help_is_shown_under_its_pass_in_the_docs_and_the_cli():
    """Each pass's own section of docs/passes.md and of overlap-opt --help
    carries each of its options with its help line (a pass whose field
    overrides the shared line shows its own)."""
    from syncopate.passes.option_help import help_of, options_of
    from syncopate.tools.overlap_opt import OverlapOptMain

    docs = gen_pass_docs.DOC.read_text()
    catalogue = OverlapOptMain([]).catalogue()
    for pass_class in _our_passes():
        doc_section, cli_section = _doc_section(docs, pass_class.name), _cli_section(catalogue, pass_class.name)
        for option in options_of(pass_class):
            line = help_of(option)
            assert f"| `{option.name}` |" in doc_section and line in doc_section, f"docs: {pass_class.name}.{option.name}"
            assert line in cli_section, f"--help: {pass_class.name}.{option.name}"


def test_a_field_help_overrides_the_shared_line():
    """verify-sync's ``waits`` checks waits, it does not insert them."""
    from syncopate.passes.insert_signals import InsertSignalsPass
    from syncopate.passes.option_help import help_of, options_of
    from syncopate.passes.verify_sync import VerifySyncPass

    def waits(pass_class):
        return help_of(next(f for f in options_of(pass_class) if f.name == "waits"))

    assert waits(InsertSignalsPass).startswith("insert")
    assert waits(VerifySyncPass).startswith("check")
