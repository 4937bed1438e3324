"""Relations a step states between its two sides: one class per kind (as SymPy's relational classes), each with its
sign rule (the slack), strictness, negation, LaTeX and how the engine decides it. The one relation table.

A relation is also its ASCII symbol (`LessEqual() == "<="`), so a step declared with a string and code that reads
`step.relation` as a string keep working; the engine itself only asks the relation object. Adding a kind is one
class here and its tests (tests/test_relation.py).
"""
from __future__ import annotations

from typing import Any, ClassVar

import sympy as sp

__all__ = ["Relation", "Equal", "Unequal", "LessEqual", "Less", "GreaterEqual", "Greater", "Approx", "Proportional",
           "RELATION_KINDS", "STEP_RELATIONS", "relation_of"]


class Relation(str):
    """A relation kind between `lhs` and `rhs`. The slack is the margin by which it holds: >= 0 holds (> 0 for a
    strict relation), < 0 fails. `margin` is the tolerance a numeric comparison allows (>= 0): it widens a
    non-strict relation and narrows a strict one (a strict relation must hold by more than the noise)."""

    symbol: ClassVar[str] = ""
    tex: ClassVar[str] = ""
    strict: ClassVar[bool] = False
    # +1: lhs below rhs (slack rhs - lhs); -1: lhs above rhs (slack lhs - rhs); 0: the sides agree (|lhs - rhs|)
    direction: ClassVar[int] = 0

    def __new__(cls, *args: Any, **kwargs: Any) -> "Relation":
        return str.__new__(cls, cls.symbol)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __reduce__(self):  # pickled (to worker processes) as the kind and its parameters, not as a str
        return (_rebuild, (type(self).__name__, self._params()))

    def _params(self) -> dict:
        return {}

    def slack(self, lhs: Any, rhs: Any, margin: Any = 0) -> Any:
        """The signed margin of `lhs self rhs` for numbers that support arithmetic (mpmath, Arb balls, NumPy arrays:
        elementwise)."""
        if self.direction == 0:
            return margin - abs(lhs - rhs)
        d = (rhs - lhs) if self.direction > 0 else (lhs - rhs)
        return d - margin if self.strict else d + margin

    def slack_expr(self, lhs: sp.Expr, rhs: sp.Expr) -> sp.Expr:
        """The slack as a SymPy expression (margin 0): what proof and certification decide the sign of."""
        if self.direction == 0:
            return -sp.Abs(lhs - rhs)
        return (rhs - lhs) if self.direction > 0 else (lhs - rhs)

    def holds(self, slack: Any) -> bool:
        """The sign rule: holds when the slack is >= 0, or > 0 for a strict relation."""
        return bool(slack > 0) if self.strict else bool(slack >= 0)

    @property
    def negation(self) -> "Relation":
        """The relation that holds exactly where this one fails."""
        raise TypeError(f"{type(self).__name__} has no relation among the kinds for its negation")

    @property
    def reversed(self) -> "Relation":
        """The same statement with the sides swapped (a <= b is b >= a)."""
        return self

    def latex(self, lhs_tex: str, rhs_tex: str) -> str:
        return f"{lhs_tex} {self.tex} {rhs_tex}"

    def sympy(self, lhs: Any, rhs: Any) -> Any:
        """The SymPy relational (unevaluated)."""
        raise TypeError(f"{type(self).__name__} has no SymPy relational")

    def decided_as(self, lhs: Any, rhs: Any) -> tuple[Any, "Relation", Any]:
        """The plain relation (=, <=, <, >=, >) between two expressions that the engine decides for this one: itself
        for the plain kinds; a tolerance or a constant brought into the sides for the others."""
        return lhs, self, rhs


def _rebuild(name: str, params: dict) -> Relation:
    return RELATION_KINDS_BY_NAME[name](**params)


class Equal(Relation):
    symbol, tex = "==", "="

    @property
    def negation(self) -> Relation:
        return Unequal()

    def sympy(self, lhs, rhs):
        return sp.Eq(lhs, rhs, evaluate=False)


class Unequal(Relation):
    """a != b: printed displays only (a step states what holds; a step of this kind is refused)."""
    symbol, tex = "!=", r"\ne"
    strict = True

    def slack(self, lhs, rhs, margin=0):
        return abs(lhs - rhs) - margin

    def slack_expr(self, lhs, rhs):
        return sp.Abs(lhs - rhs)

    @property
    def negation(self) -> Relation:
        return Equal()

    def sympy(self, lhs, rhs):
        return sp.Ne(lhs, rhs, evaluate=False)


class LessEqual(Relation):
    symbol, tex, direction = "<=", r"\le", 1

    @property
    def negation(self) -> Relation:
        return Greater()

    @property
    def reversed(self) -> Relation:
        return GreaterEqual()

    def sympy(self, lhs, rhs):
        return sp.Le(lhs, rhs, evaluate=False)


class Less(Relation):
    symbol, tex, direction, strict = "<", "<", 1, True

    @property
    def negation(self) -> Relation:
        return GreaterEqual()

    @property
    def reversed(self) -> Relation:
        return Greater()

    def sympy(self, lhs, rhs):
        return sp.Lt(lhs, rhs, evaluate=False)


class GreaterEqual(Relation):
    symbol, tex, direction = ">=", r"\ge", -1

    @property
    def negation(self) -> Relation:
        return Less()

    @property
    def reversed(self) -> Relation:
        return LessEqual()

    def sympy(self, lhs, rhs):
        return sp.Ge(lhs, rhs, evaluate=False)


class Greater(Relation):
    symbol, tex, direction, strict = ">", ">", -1, True

    @property
    def negation(self) -> Relation:
        return LessEqual()

    @property
    def reversed(self) -> Relation:
        return Less()

    def sympy(self, lhs, rhs):
        return sp.Gt(lhs, rhs, evaluate=False)


class Approx(Relation):
    """lhs ≈ rhs within a stated tolerance: |lhs - rhs| <= atol + rtol |rhs| (rhs the value the paper prints as
    approximate). `source` says where the tolerance comes from (an error bound, the printed digits); required."""
    symbol, tex = "approx", r"\approx"

    def __new__(cls, *, rtol: float = 0.0, atol: float = 0.0, source: str = "") -> "Approx":
        self = str.__new__(cls, cls.symbol)
        for name, v in (("rtol", rtol), ("atol", atol)):
            if not isinstance(v, (int, float)) or not v >= 0 or v != v or v == float("inf"):
                raise ValueError(f"Approx: {name} must be a finite number >= 0; got {name}={v!r}")
        if not (rtol or atol):
            raise ValueError("Approx: a tolerance is required (rtol > 0 or atol > 0); '==' states exact equality")
        if not isinstance(source, str) or not source.strip():
            raise ValueError(f"Approx: source must say where the tolerance comes from; got source={source!r}")
        self.rtol, self.atol, self.source = float(rtol), float(atol), source
        return self

    def _params(self) -> dict:
        return {"rtol": self.rtol, "atol": self.atol, "source": self.source}

    def __repr__(self) -> str:
        return f"Approx(rtol={self.rtol:g}, atol={self.atol:g}, source={self.source!r})"

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Approx):
            return self._params() == other._params()
        return str.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        return not self == other

    __hash__ = str.__hash__  # as its symbol: a table keyed by "approx" finds it (equal objects, equal hashes)

    def slack(self, lhs, rhs, margin=0):
        return margin + self.atol + self.rtol * abs(rhs) - abs(lhs - rhs)

    def slack_expr(self, lhs, rhs):
        return self.atol + self.rtol * sp.Abs(rhs) - sp.Abs(lhs - rhs)

    def sympy(self, lhs, rhs):
        return sp.Le(sp.Abs(lhs - rhs), self.atol + self.rtol * sp.Abs(rhs), evaluate=False)

    def decided_as(self, lhs, rhs):
        # |lhs - rhs| <= atol + rtol |rhs|: an inequality between two expressions
        return sp.Abs(sp.sympify(lhs) - sp.sympify(rhs)), LessEqual(), self.atol + self.rtol * sp.Abs(rhs)


class Proportional(Relation):
    """lhs ∝ rhs with its constant: lhs = constant * rhs, the constant (a number or a SymPy expression in the step's
    symbols) being the one the paper drops ("we ignore the coefficient ... and restore it at the end")."""
    symbol, tex = "propto", r"\propto"

    def __new__(cls, constant: Any) -> "Proportional":
        self = str.__new__(cls, cls.symbol)
        c = sp.sympify(constant)
        if c == 0 or not isinstance(c, sp.Expr):
            raise ValueError(f"Proportional: constant must be a nonzero number or expression; got constant={constant!r}")
        self.constant = c
        return self

    def _params(self) -> dict:
        return {"constant": self.constant}

    def __repr__(self) -> str:
        return f"Proportional({sp.sstr(self.constant)})"

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Proportional):
            return self.constant == other.constant
        return str.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        return not self == other

    __hash__ = str.__hash__

    def constant_at(self, point: dict) -> Any:
        """The constant at a point (parameter name -> value), as a SymPy number."""
        subs = {s: point[s.name] for s in self.constant.free_symbols if s.name in point}
        missing = sorted(s.name for s in self.constant.free_symbols if s.name not in point)
        if missing:
            raise ValueError(f"Proportional: the constant's symbols {missing} have no value at this point")
        return self.constant.subs({s: sp.nsimplify(v) if isinstance(v, float) else v for s, v in subs.items()})

    def slack(self, lhs, rhs, margin=0):  # rhs already multiplied by the constant (decided_as / the point's value)
        return margin - abs(lhs - rhs)

    def slack_expr(self, lhs, rhs):
        return -sp.Abs(lhs - self.constant * rhs)

    def sympy(self, lhs, rhs):
        return sp.Eq(lhs, self.constant * rhs, evaluate=False)

    def latex(self, lhs_tex, rhs_tex):
        return f"{lhs_tex} {self.tex} {rhs_tex} \\quad (\\text{{constant }} {sp.latex(self.constant)})"

    def decided_as(self, lhs, rhs):
        return lhs, Equal(), self.constant * sp.sympify(rhs)


# The one relation table: each kind once, by its ASCII symbol. STEP_RELATIONS: what a step may state.
RELATION_KINDS: dict[str, type[Relation]] = {k.symbol: k for k in (Equal, Unequal, LessEqual, Less, GreaterEqual,
                                                                   Greater, Approx, Proportional)}
RELATION_KINDS_BY_NAME = {k.__name__: k for k in RELATION_KINDS.values()}
STEP_RELATIONS = ("==", "<=", "<", ">=", ">", "approx", "propto")
_PARAMETRIZED = (Approx, Proportional)


def relation_of(relation: Any) -> Relation:
    """The relation object for a kind or its ASCII symbol ("==", "<=", "<", ">=", ">", "!="); a kind with
    parameters (Approx, Proportional) must be given as an object, with them. ValueError naming the allowed ones."""
    if isinstance(relation, Relation):
        return relation
    kind = RELATION_KINDS.get(relation) if isinstance(relation, str) else None
    if kind is None or kind in _PARAMETRIZED:
        plain = ", ".join(repr(k) for k, v in RELATION_KINDS.items() if v not in _PARAMETRIZED)
        raise ValueError(f"relation must be one of {plain} or a relation object (Approx(rtol=..., source=...), "
                         f"Proportional(constant)); got {relation!r}")
    return kind()
