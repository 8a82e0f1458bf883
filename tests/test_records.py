"""``core.records`` against ``dataclasses``: the same declaration, made both ways, behaves the same.

Declarations are generated (fields with plain defaults, factories, left out of repr or ==; frozen, eq, repr and
slots in every combination; a class's own methods; an exception as base), and each behaviour a record offers is
compared: construction, repr (a recursive one too), ==, hash, assignment to a frozen record, slots, pickling,
copying, ``replace``, ``fields`` and ``__match_args__``. Every record the project declares is also checked against
the dataclass its declaration makes.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pickle
import pkgutil
import re
import sys
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rawko_tui
from rawko_tui.core import records

NAMES = ["a", "b", "c", "d", "e", "f"]
DEFAULTS = ["MISSING", "0", "'x'", "None", "()", "factory_list", "factory_dict"]


@st.composite
def declarations(draw):
    count = draw(st.integers(0, len(NAMES)))
    specs, defaulted = [], False
    for name in NAMES[:count]:
        default = draw(st.sampled_from(DEFAULTS[1:] if defaulted else DEFAULTS))
        defaulted = defaulted or default != "MISSING"
        specs.append((name, default, draw(st.booleans()), draw(st.booleans())))
    flags = {"frozen": draw(st.booleans()), "eq": draw(st.booleans()), "repr": draw(st.booleans()), "slots": draw(st.booleans())}
    own = draw(st.sampled_from(["", "__eq__", "__hash__", "__repr__"]))
    base = draw(st.sampled_from(["", "Exception"])) if not flags["frozen"] and not flags["slots"] else ""
    return specs, flags, own, base


def source(specs, flags, own, base, decorator: str, field_function: str) -> str:
    arguments = ", ".join(f"{key}={value}" for key, value in flags.items())
    lines = [f"@{decorator}({arguments})", f"class Thing({base}):"]
    for name, default, shown, compared in specs:
        options = []
        if default == "factory_list":
            options.append("default_factory=list")
        elif default == "factory_dict":
            options.append("default_factory=dict")
        elif default != "MISSING":
            options.append(f"default={default}")
        if not shown:
            options.append("repr=False")
        if not compared:
            options.append("compare=False")
        lines.append(f"    {name}: int" + (f" = {field_function}({', '.join(options)})" if options else ""))
    if own == "__eq__":
        lines += ["    def __eq__(self, other):", "        return 'own'"]
    elif own == "__hash__":
        lines += ["    def __hash__(self):", "        return 7"]
    elif own == "__repr__":
        lines += ["    def __repr__(self):", "        return 'own repr'"]
    if len(lines) == 2:
        lines.append("    pass")
    return "\n".join(lines)


def made(code: str, scope: dict):
    module = types.ModuleType("generated")  # dataclasses reads string annotations in the class's module
    vars(module).update(scope)
    sys.modules["generated"] = module
    try:
        exec("from __future__ import annotations\n" + code, vars(module))
    finally:
        del sys.modules["generated"]
    return vars(module)["Thing"]


def outcome(action):
    """What an action gives: its value, or the type and message of what it raised."""
    try:
        return ("value", action())
    except Exception as error:  # noqa: BLE001 - the comparison is of what is raised
        return ("raised", type(error).__name__.replace("FrozenInstanceError", "Frozen"), str(error))


def behaviour(cls, specs, module_fields, module_replace):
    """Every observable behaviour of a class and two of its instances, as plain values."""
    required = [name for name, default, _, _ in specs if default == "MISSING"]
    values = {name: index + 1 for index, name in enumerate(required)}
    first = cls(**values)
    second = cls(*[values[name] for name in required])
    other = cls(**{name: 100 + value for name, value in values.items()})
    seen = {
        "init": [outcome(lambda: {name: getattr(first, name) for name, *_ in specs})],
        "init positional too many": outcome(lambda: cls(*range(len(specs) + 1))),
        "init missing": outcome(lambda: cls()) if required else None,
        "factories fresh": [getattr(first, name) is not getattr(second, name) for name, default, *_ in specs if default.startswith("factory")],
        "repr": outcome(lambda: re.sub(r"generated_\w+|0x[0-9a-f]+", "", repr(first))),
        "eq same": outcome(lambda: first == second),
        "eq other": outcome(lambda: first == other),
        "ne": outcome(lambda: first != second),
        "eq foreign": outcome(lambda: first == object()),
        "eq subclass": outcome(lambda: first == type("Sub", (cls,), {})(**values)),
        "hashable": outcome(lambda: hash(first) == hash(second)),
        "hash attr none": cls.__hash__ is None,
        "set field": outcome(lambda: setattr(first, specs[0][0], 99) if specs else setattr(first, "a", 99)),
        "set other": outcome(lambda: setattr(first, "zz", 1)),
        "del field": outcome(lambda: delattr(second, specs[0][0]) if specs else None),
        "has dict": hasattr(first, "__dict__"),
        "slots": getattr(cls, "__slots__", None),
        "match args": cls.__match_args__,
        "fields": [field.name for field in module_fields(cls)],
        "class defaults": {name: outcome(lambda name=name: class_default(cls, name)) for name, *_ in specs},
        "is exception": isinstance(first, BaseException),
    }
    fresh = cls(**{name: 50 + value for name, value in values.items()})
    seen["pickled"] = outcome(lambda: repr(pickle.loads(pickle.dumps(fresh))) == repr(fresh) and vars_of(pickle.loads(pickle.dumps(fresh)), specs) == vars_of(fresh, specs))
    seen["copied"] = outcome(lambda: vars_of(copy.copy(fresh), specs) == vars_of(fresh, specs) and vars_of(copy.deepcopy(fresh), specs) == vars_of(fresh, specs))
    if specs:
        seen["replace"] = outcome(lambda: vars_of(module_replace(fresh, **{specs[-1][0]: 77}), specs))
    seen["replace unknown"] = outcome(lambda: module_replace(fresh, zz=1))
    return seen


def class_default(cls, name: str):
    value = getattr(cls, name)
    return "a slot" if isinstance(value, types.MemberDescriptorType) else value


def vars_of(instance, specs) -> dict:
    return {name: getattr(instance, name) for name, *_ in specs}


def _thing_pickle_scope(cls, module_name: str):
    """Pickle finds a class by module and name: each generated class gets a module of its own."""
    module = types.ModuleType(module_name)
    module.Thing = cls
    cls.__module__ = module_name
    cls.__qualname__ = "Thing"
    sys.modules[module_name] = module


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(declarations())
def test_a_record_behaves_as_the_dataclass_of_its_declaration(declaration):
    specs, flags, own, base = declaration
    expected_class = made(source(specs, flags, own, base, "dataclass", "field"), {"dataclass": dataclasses.dataclass, "field": dataclasses.field})
    record_class = made(source(specs, flags, own, base, "record", "field"), {"record": records.record, "field": records.field})
    _thing_pickle_scope(expected_class, "generated_dataclass")
    _thing_pickle_scope(record_class, "generated_record")
    try:
        expected = behaviour(expected_class, specs, dataclasses.fields, dataclasses.replace)
        got = behaviour(record_class, specs, records.fields, records.replace)
    finally:
        sys.modules.pop("generated_dataclass", None)
        sys.modules.pop("generated_record", None)
    if flags["frozen"] and flags["slots"]:
        # Python 3.11's dataclasses make a frozen slotted class's __setattr__ for the class it then replaces, so
        # assigning raises "super(type, obj): obj must be an instance…"; a record raises
        # FrozenInstanceError, as a frozen class without slots does
        for action in ("set field", "set other", "del field"):
            if expected[action] and expected[action][1] == "TypeError":
                assert got[action][:2] == ("raised", "Frozen")
                expected[action] = got[action]
    assert got == expected


def test_a_recursive_repr_is_cut_as_dataclasses_cut_it():
    @dataclasses.dataclass
    class Expected:
        inner: object = None

    @records.record
    class Got:
        inner: object = None

    expected, got = Expected(), Got()
    expected.inner, got.inner = [expected], [got]
    assert repr(got).replace("Got", "Expected") == repr(expected)


def test_a_declaration_a_record_does_not_offer_is_refused():
    with pytest.raises(TypeError, match="non-default argument"):

        @records.record
        class Wrong:
            a: int = 0
            b: int

    with pytest.raises(ValueError, match="mutable default"):

        @records.record
        class Shared:
            a: list = []  # noqa: RUF012 - the mistake under test

    with pytest.raises(TypeError, match="ClassVar"):

        @records.record
        class Counted:
            a: ClassVar[int] = 0  # noqa: F821 - a string annotation, never evaluated

    @records.record
    class Base:
        a: int = 0

    with pytest.raises(TypeError, match="does not inherit"):

        @records.record
        class Derived(Base):
            b: int = 0


def _project_records():
    for module_info in pkgutil.walk_packages(rawko_tui.__path__, "rawko_tui."):
        if module_info.name.startswith("rawko_tui.tui") or module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__ and "__record_fields__" in value.__dict__:
                yield value


def test_every_record_of_the_project_keeps_the_fields_of_its_declaration():
    """Every record the core declares: its fields, defaults and flags are those a dataclass would read."""
    seen = list(_project_records())
    assert len(seen) > 40
    for cls in seen:
        for item in records.fields(cls):
            assert item.name in cls.__dict__.get("__annotations__", {}), cls
        assert cls.__match_args__ == tuple(item.name for item in records.fields(cls))
