"""The printed relations a display can state (=, <=, \\approx, \\propto, ...): their table, the relation classes SymPy
lacks (Approx, Propto), `relation` to build one unevaluated, and the patterns that find them in LaTeX."""
from __future__ import annotations

import re

import sympy as sp


_RELATIONS = {"=": "==", ":=": "==", "\\coloneqq": "==", "\\triangleq": "==", "\\equiv": "==", "\\doteq": "==",
              "\\eqqcolon": "==", "\\stackrel{\\text{def}}{=}": "==",
              "\\le": "<=", "\\ge": ">=", "<": "<", ">": ">", "\\ne": "!=", "\\lt": "<", "\\gt": ">"}
_OTHER_RELATIONS = ("\\approx", "\\simeq", "\\sim", "\\propto", "\\succcurlyeq", "\\preccurlyeq", "\\succeq",
                    "\\preceq", "\\succ", "\\prec", "\\ll", "\\gg", "\\asymp", "\\cong", "\\to", "\\rightarrow",
                    "\\mapsto", "\\ni", "\\in", "\\notin", "\\lesssim", "\\gtrsim")


class Approx(sp.core.relational.Relational):
    r"""A printed approximation, a \approx b (PARSE_FORMAT 4): kept as printed, never decided by SymPy; the comparison
    (theorylab._pipeline.fidelity) reads it as an equality at the step's stated tolerance."""

    __slots__ = ()
    rel_op = "approx"

    def _latex(self, printer):
        return f"{printer._print(self.lhs)} \\approx {printer._print(self.rhs)}"


class Propto(sp.core.relational.Relational):
    r"""A printed proportionality, a \propto b (PARSE_FORMAT 4): a = C b with C a constant in the variables the
    proportionality is about (theorylab._pipeline.fidelity says which); kept as printed, never decided by SymPy."""

    __slots__ = ()
    rel_op = "propto"

    def _latex(self, printer):
        return f"{printer._print(self.lhs)} \\propto {printer._print(self.rhs)}"


_APPROXIMATE = {"\\approx": "approx", "\\propto": "propto"}     # printed relations kept as Approx / Propto
_REL_CLASSES = {"approx": Approx, "propto": Propto}


def relation(lhs, rhs, op: str):
    """The printed relation lhs op rhs, unevaluated: op one of SymPy's (==, <=, <, >=, >, !=) or "approx", "propto"."""
    cls = _REL_CLASSES.get(op)
    return cls(lhs, rhs) if cls is not None else sp.Rel(lhs, rhs, op, evaluate=False)


_REL_RX = re.compile(r"(?::=|\\coloneqq|\\triangleq|\\equiv|\\doteq|\\eqqcolon|\\le(?![A-Za-z])|\\ge(?![A-Za-z])|"
                     r"\\ne(?![A-Za-z])|\\lt(?![A-Za-z])|\\gt(?![A-Za-z])|=|<|>|"
                     + "|".join(re.escape(r) + "(?![A-Za-z])" for r in _OTHER_RELATIONS) + ")")
_SEPARATORS = re.compile(r"\\q?quad(?![A-Za-z])|\\text\s*\{\s*(?:and|or|,)\s*\}|\\(?:implies|Rightarrow|"
                         r"Longrightarrow|iff|Leftrightarrow)(?![A-Za-z])|;")
_CONDITION = re.compile(r"\\(?:text|mathrm)\s*\{\s*(?:s\.\s*t\.|for|if|where|with|when|subject|such|as|since|"
                        r"otherwise|on|and\s+for)[^}]*\}|\\(?:forall)(?![A-Za-z])|\\text\s*\{\s*\}")
