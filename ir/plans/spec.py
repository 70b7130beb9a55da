"""Plan specs: ``NAME{key=value ...}`` strings, parsed with xDSL's own
pass-option parser (:func:`xdsl.utils.arg_spec.parse_spec`).

``NAME`` is a template (see :mod:`syncopate.ir.plans.templates`) or ``port``
(see :mod:`syncopate.ir.plans.port`). Values are ints, identifiers, quoted
strings or comma-separated lists (``splits=1,2,3``); ``-`` and ``_`` in keys
are interchangeable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from xdsl.utils.arg_spec import ArgSpec, parse_spec
from xdsl.utils.exceptions import ArgSpecParseError

from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.expr import user_extent
from syncopate.ir.plans.model import Plan
from syncopate.ir.plans.port import port
from syncopate.ir.plans.templates import TEMPLATES, TemplateOptions, instantiate

SPEC_NAMES = (*TEMPLATES, "port")


def parse(spec: str) -> ArgSpec:
    """Parse ``spec`` or raise PlanError (xDSL raises a BaseException)."""
    _check_shape(spec.strip())
    try:
        return parse_spec(spec.strip()).normalize_parameter_names()
    except ArgSpecParseError as err:
        raise PlanError(
            f"cannot parse plan spec {spec!r} (quote values that contain / ( ) "
            f"or spaces, e.g. size=\"M/2\" from=\"Shard(0)\"):\n{err}"
        ) from None


def _check_shape(spec: str) -> None:
    """What xDSL's option parser lets through silently: text after the
    closing brace, and an option given twice (the last one would win)."""
    unquoted = re.sub(r'"(?:[^"\\]|\\.)*"', '""', spec)
    if "}" in unquoted and unquoted[unquoted.index("}") + 1:].strip():
        raise PlanError(f"plan spec {spec!r}: unexpected text after the closing brace: "
                        f"{unquoted[unquoted.index('}') + 1:].strip()!r}")
    seen: set[str] = set()
    for key in re.findall(r"(?:^|[{\s,])([A-Za-z_][\w-]*)\s*=", unquoted):
        key = key.replace("-", "_")
        if key in seen:
            raise PlanError(f"plan spec {spec!r}: option '{key}' is given twice")
        seen.add(key)


class Options:
    """Typed access to the parameters of a parsed spec, with clear errors."""

    def __init__(self, name: str, params: Mapping[str, tuple[object, ...]]):
        self.name = name
        self.params = dict(params)

    def take(self, key: str, kind: type | tuple[type, ...], default: object = None) -> object:
        """Remove and return one scalar parameter, checking its type."""
        if key not in self.params:
            if default is _REQUIRED:
                raise PlanError(f"{self.name}: missing required option '{key}'")
            return default
        values = self.params.pop(key)
        if len(values) != 1 or not isinstance(values[0], kind) or isinstance(values[0], bool):
            raise PlanError(f"{self.name}: option '{key}' expects one {_kind_name(kind)}, got {_show(values)}")
        return values[0]

    def take_list(self, key: str, kind: type | tuple[type, ...]) -> tuple[object, ...] | None:
        """Remove and return a list parameter (``key=1,2,3``)."""
        if key not in self.params:
            return None
        values = self.params.pop(key)
        if not values or not all(isinstance(v, kind) and not isinstance(v, bool) for v in values):
            raise PlanError(f"{self.name}: option '{key}' expects a list of {_kind_name(kind)}, got {_show(values)}")
        return values

    def finish(self, allowed: tuple[str, ...]) -> None:
        """Fail on leftover (unknown) options."""
        if self.params:
            raise PlanError(
                f"{self.name}: unknown option(s) {', '.join(sorted(self.params))}; "
                f"expected: {', '.join(allowed)}"
            )


_REQUIRED = object()
TEMPLATE_KEYS = ("world", "tensor", "dim", "size", "chunks_per_rank", "blocks", "order", "splits", "name", "param", "stride")


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({int: "integer", str: "string"}.get(k, k.__name__) for k in kinds)


def _show(values: tuple[object, ...]) -> str:
    return ",".join(str(v) for v in values) if values else "nothing"


def template_options(kind: str, opts: Options) -> TemplateOptions:
    """Read the template options of ``kind`` out of ``opts``."""
    world = opts.take("world", int, _REQUIRED)
    splits = opts.take_list("splits", (int, str))
    result = TemplateOptions(
        kind=kind,
        world=world,  # type: ignore[arg-type]
        tensor=opts.take("tensor", str, "a"),  # type: ignore[arg-type]
        dim=opts.take("dim", int, 0),  # type: ignore[arg-type]
        size=user_extent(opts.take("size", (int, str), "M")),  # type: ignore[arg-type]
        chunks_per_rank=opts.take("chunks_per_rank", int, 1),  # type: ignore[arg-type]
        blocks=opts.take("blocks", int, 1),  # type: ignore[arg-type]
        order=opts.take("order", str, "ring"),  # type: ignore[arg-type]
        splits=None if splits is None else tuple(user_extent(s) for s in splits),  # type: ignore[arg-type]
        name=opts.take("name", str),  # type: ignore[arg-type]
        param=opts.take("param", str),  # type: ignore[arg-type]
        stride=opts.take("stride", (str, int)),  # type: ignore[arg-type]
    )
    opts.finish(TEMPLATE_KEYS)
    return result


PORT_KEYS = ("from", "to", "world", "tensor", "size", "chunks_per_rank", "order", "name", "param")


def port_options(opts: Options) -> Plan:
    """``port{...}`` spec -> plan: the placements and template options read
    out of ``opts``, then :func:`syncopate.ir.plans.port.port`."""
    src = opts.take("from", str, _REQUIRED)
    dst = opts.take("to", str, _REQUIRED)
    world = opts.take("world", int, _REQUIRED)
    tensor = opts.take("tensor", str, "a")
    extra: dict[str, object] = {}
    for key, kind in (("size", (int, str)), ("chunks_per_rank", int), ("order", str), ("name", str), ("param", str)):
        value = opts.take(key, kind)
        if value is not None:
            extra[key] = user_extent(value) if key == "size" else value  # type: ignore[arg-type]
    opts.finish(PORT_KEYS)
    return port(src, dst, world, tensor, **extra)  # type: ignore[arg-type]


def plan_from_spec(spec: str) -> Plan:
    """The (unverified) plan a template or port spec describes."""
    parsed = parse(spec)
    opts = Options(parsed.name, parsed.parameters)
    if parsed.name == "port":
        return port_options(opts)
    if parsed.name not in TEMPLATES:
        raise PlanError(
            f"unknown plan template '{parsed.name}'; expected one of "
            + ", ".join(SPEC_NAMES)
            + " (or a path to a .mlir file)"
        )
    return instantiate(template_options(parsed.name, opts))
