"""Enum-like pass options, typed ``Literal[...]``.

A pass dataclass field typed ``Literal["a", "b"]`` is a choice. xDSL already
refuses a spec value outside the literal, but with a message that names
neither the pass nor the option; :class:`ChoiceOptions` refuses it first, as
``PASS: unknown OPTION 'VALUE', expected one of a, b``, both for a spec
(``-p 'pass{option=value}'``) and for a pass built in Python.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Literal

from xdsl.utils.arg_spec import ArgSpec


def choices(pass_class: type) -> dict[str, tuple[str, ...]]:
    """Field name -> allowed values, for the ``Literal``-typed fields."""
    hints = typing.get_type_hints(pass_class)
    return {
        f.name: typing.get_args(hints[f.name])
        for f in dataclasses.fields(pass_class)
        if f.init and typing.get_origin(hints.get(f.name)) is Literal
    }


def _refuse(pass_name: str, option: str, value: Any, allowed: tuple[str, ...]) -> ValueError:
    shown = ",".join(map(str, value)) if isinstance(value, (tuple, list)) else value
    return ValueError(f"{pass_name}: unknown {option} '{shown}', expected one of {', '.join(allowed)}")


class ChoiceOptions:
    """Mixin for a ``ModulePass`` dataclass (list it before ``ModulePass``)."""

    name: typing.ClassVar[str]

    @classmethod
    def from_spec(cls, spec: ArgSpec):  # type: ignore[no-untyped-def]
        given = spec.normalize_parameter_names().parameters
        for option, allowed in choices(cls).items():
            value = given.get(option)
            if value is not None and not (len(value) == 1 and value[0] in allowed):
                raise _refuse(cls.name, option, value, allowed)
        return super().from_spec(spec)  # type: ignore[misc]

    def __post_init__(self) -> None:
        for option, allowed in choices(type(self)).items():
            value = getattr(self, option)
            if value not in allowed:
                raise _refuse(self.name, option, value, allowed)
