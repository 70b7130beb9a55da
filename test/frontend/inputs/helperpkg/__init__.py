"""A user package whose kernels import jit helpers from a sibling module
(test/frontend/imported-helper.py and the tests it names)."""
