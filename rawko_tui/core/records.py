"""Plain data classes, declared the way ``dataclasses`` declares them, made without it.

A command is a short process: ``dataclasses`` imports ``inspect`` (with
``dis``, ``ast``, ``tokenize``), and every ``@dataclass`` compiles three to
five methods from source as its module is imported, about a quarter of a
millisecond each, for the thirty classes a ``preview`` passes through: a
tenth of a command's whole time.  ``record`` takes the same declaration
(annotations, defaults, ``field(...)``, ``frozen``, ``eq``, ``repr``,
``slots``) and makes each of the same methods, with the same behaviour, the
first time it is called: a class a command never instantiates costs it
nothing, and one it only makes pays for its ``__init__`` alone.
``tests/test_records.py`` holds it to ``dataclasses``, method by method.

The subset is what this project declares: no ``__post_init__``, ``InitVar``,
``ClassVar``, keyword-only fields, ordering or inheritance between records.
"""

from __future__ import annotations

import _thread

__all__ = ["FrozenInstanceError", "field", "fields", "record", "replace"]


class FrozenInstanceError(AttributeError):
    """Raised on assigning to, or deleting, a field of a frozen record."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class Field:
    """One declared field: its name, its default or the factory that makes it, and whether repr and == read it."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default, default_factory, repr: bool, compare: bool):  # noqa: A002 - dataclasses' own names
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r}, repr={self.repr}, compare={self.compare})"


def field(*, default=MISSING, default_factory=MISSING, repr: bool = True, compare: bool = True) -> Field:  # noqa: A002
    """A field with a default made per instance (``default_factory``) or left out of repr or ==, as ``dataclasses.field``."""
    return Field(default, default_factory, repr, compare)


def fields(class_or_instance) -> tuple[Field, ...]:
    """The record's fields, in declaration order."""
    try:
        return class_or_instance.__record_fields__
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def replace(instance, /, **changes):
    """A new record like ``instance`` with ``changes`` made, as ``dataclasses.replace``."""
    for item in fields(instance):
        if item.name not in changes:
            changes[item.name] = getattr(instance, item.name)
    return instance.__class__(**changes)


def record(cls=None, /, *, frozen: bool = False, eq: bool = True, repr: bool = True, slots: bool = False):  # noqa: A002
    """``@record`` or ``@record(frozen=True, ...)`` on a class declared as for ``@dataclass``."""

    def make(cls):
        return _make(cls, frozen, eq, repr, slots)

    return make if cls is None else make(cls)


def _declared_fields(cls) -> tuple[Field, ...]:
    declared: list[Field] = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if isinstance(annotation, str) and annotation.partition("[")[0].rpartition(".")[2] in ("ClassVar", "InitVar", "KW_ONLY"):
            raise TypeError(f"{cls.__qualname__}.{name}: a record has no ClassVar, InitVar or keyword-only fields")
        value = cls.__dict__.get(name, MISSING)
        item = value if isinstance(value, Field) else Field(value, MISSING, True, True)
        item.name = name
        has_default = item.default is not MISSING or item.default_factory is not MISSING
        if not has_default and declared and (declared[-1].default is not MISSING or declared[-1].default_factory is not MISSING):
            raise TypeError(f"non-default argument {name!r} follows default argument")
        if isinstance(item.default, (list, dict, set)):
            raise ValueError(f"mutable default {type(item.default)} for field {name} is not allowed: use default_factory")
        declared.append(item)
    return tuple(declared)


def _make(cls, frozen: bool, eq: bool, want_repr: bool, slots: bool):
    for base in cls.__mro__[1:]:
        if "__record_fields__" in base.__dict__:
            raise TypeError(f"{cls.__qualname__}: a record does not inherit from another record")
    declared = _declared_fields(cls)
    for item in declared:  # as dataclasses: a plain default stays a class attribute, a field() is removed
        if isinstance(cls.__dict__.get(item.name), Field):
            if item.default is MISSING:
                delattr(cls, item.name)
            else:
                setattr(cls, item.name, item.default)
    if slots:
        cls = _with_slots(cls, declared)
    cls.__record_fields__ = declared
    own = cls.__dict__
    methods = ["__init__"] if "__init__" not in own else []
    if want_repr and "__repr__" not in own:
        methods.append("__repr__")
    if eq and "__eq__" not in own:
        methods.append("__eq__")
    # dataclasses' hash table: a class's own __hash__ stays (one set to None by defining __eq__ is not its own)
    own_hash = own.get("__hash__", MISSING)
    explicit_hash = not (own_hash is MISSING or (own_hash is None and "__eq__" in own))
    if eq and not explicit_hash:
        if frozen:
            methods.append("__hash__")
        else:
            cls.__hash__ = None
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        cls.__setattr__, cls.__delattr__ = _frozen_setattr(cls, declared), _frozen_delattr(cls, declared)
        if slots:
            cls.__getstate__, cls.__setstate__ = _slots_getstate, _slots_setstate
    for name in methods:
        setattr(cls, name, _made_on_first_call(cls, name, frozen))
    if "__match_args__" not in own:
        cls.__match_args__ = tuple(item.name for item in declared)
    return cls


def _with_slots(cls, declared):
    body = dict(cls.__dict__)
    names = tuple(item.name for item in declared)
    body["__slots__"] = names
    for name in names:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    made = type(cls)(cls.__name__, cls.__bases__, body)
    made.__qualname__ = cls.__qualname__
    return made


def _made_on_first_call(cls, name: str, frozen: bool):
    """A stand-in for ``name`` that makes that method on its first call, then calls the real one."""

    def first_call(self, *args, **kwargs):
        if cls.__dict__.get(name) is first_call:
            _compile_method(cls, frozen, name)
        return getattr(cls, name)(self, *args, **kwargs)

    first_call.__name__ = first_call.__qualname__ = name
    return first_call


def _compile_method(cls, frozen: bool, name: str) -> None:
    """The method ``name`` compiled from source, in place of its stand-in (``dataclasses`` compiles every method of
    every class as it is made): a command calls few classes' ``__repr__``, ``__eq__`` or ``__hash__``."""
    declared = cls.__record_fields__
    scope: dict = {"MISSING": MISSING, "_object_setattr": object.__setattr__, "_repr_running": set(), "_get_ident": _thread.get_ident}
    compared = [item.name for item in declared if item.compare]
    if name == "__init__":
        parameters, body = ["self"], []
        for item in declared:
            if item.default_factory is not MISSING:
                scope[f"_factory_{item.name}"] = item.default_factory
                parameters.append(f"{item.name}=MISSING")
                value = f"_factory_{item.name}() if {item.name} is MISSING else {item.name}"
            elif item.default is not MISSING:
                scope[f"_default_{item.name}"] = item.default
                parameters.append(f"{item.name}=_default_{item.name}")
                value = item.name
            else:
                parameters.append(item.name)
                value = item.name
            body.append(f"_object_setattr(self, {item.name!r}, {value})" if frozen else f"self.{item.name} = {value}")
        lines = [f"def __init__({', '.join(parameters)}):", *(f"    {line}" for line in body or ["pass"])]
    elif name == "__repr__":
        shown = ", ".join(f"{item.name}={{self.{item.name}!r}}" for item in declared if item.repr)
        lines = [
            "def __repr__(self):",
            "    key = id(self), _get_ident()",
            "    if key in _repr_running:",
            "        return '...'",
            "    _repr_running.add(key)",
            "    try:",
            f"        return self.__class__.__qualname__ + f\"({shown})\"",
            "    finally:",
            "        _repr_running.discard(key)",
        ]
    elif name == "__eq__":
        lines = [
            "def __eq__(self, other):",
            "    if other.__class__ is self.__class__:",
            f"        return {_tuple_of('self', compared)} == {_tuple_of('other', compared)}",
            "    return NotImplemented",
        ]
    else:  # __hash__
        lines = ["def __hash__(self):", f"    return hash({_tuple_of('self', compared)})"]
    exec("\n".join(lines), scope)  # noqa: S102 - the source is made from the class's own field names
    method = scope[name]
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, method)


def _tuple_of(owner: str, names: list[str]) -> str:
    return "(" + "".join(f"{owner}.{name}," for name in names) + ")"


def _frozen_setattr(cls, declared):
    names = frozenset(item.name for item in declared)

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls, declared):
    names = frozenset(item.name for item in declared)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _slots_getstate(self):
    return [getattr(self, item.name) for item in fields(self)]


def _slots_setstate(self, state):
    for item, value in zip(fields(self), state):
        object.__setattr__(self, item.name, value)  # the record may be frozen

