"""Cross-checks of the compiler's own analyses, written independently of them.

Nothing here imports ``ir/analysis`` or the passes it checks
(test/unit/project/test_layering.py enforces it): a model error shared by a
placing pass and its verifier would otherwise pass both.
"""
