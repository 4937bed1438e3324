"""Converting a term's LaTeX for the parsers: every symbol (a letter or Greek letter, its accents, fonts and name-like
scripts) replaced by a placeholder of the names table, applications and constructs as named placeholders."""
from __future__ import annotations

import re

from .scan import (_ACCENTS, _APPLIED, _GREEK, _INDEX, _OPTIMA, _PASS, _component_app, _depth_scan, _integral,
                   _limit, _named_sum, _Names, _operand_end, _run_placeholder, _untoken, _inner_name)
from .text import _brace_arg, _Fail, _match_close, _scripts, _split_top, _T, _tidy


def _convert(t: _T, names: _Names, in_integral: bool) -> _T:
    """A term's LaTeX with every symbol (a letter or Greek letter, its accents and fonts, name-like sub- and
    superscripts) replaced by a placeholder; operators, numbers, grouping and known functions pass through."""
    return _Converter(t, names, in_integral).run()


class _Converter:
    """One term's conversion (`_convert`), in named parts: `command` (a backslash command: the constructs read before
    parsing, operators, accents and fonts), `letter`, and `symbol` (a symbol's scripts and its application to a
    parenthesized group). Each part returns the index after what it read."""

    def __init__(self, t: _T, names: _Names, in_integral: bool):
        self.t, self.s, self.names, self.in_integral = t, t.s, names, in_integral
        self.out: list[_T] = []

    def emit(self, text: str, at: int):
        self.out.append(_T(text, [self.t.at(at)] * len(text)))

    def run(self) -> _T:
        s, i = self.s, 0
        while i < len(s):
            c = s[i]
            start = i
            if c == "\\":
                i, base = self.command(i)
            elif c.isalpha():
                i, base = self.letter(i)
            else:
                self.emit(c, i)
                i += 1
                continue
            if base is not None:
                i = self.symbol(start, i, base)
        res = _T("", [])
        for piece in self.out:
            res = res + piece
        return res

    # -- commands ----------------------------------------------------------------------------------------------------

    def command(self, i: int) -> tuple[int, str | None]:
        """The command at s[i]: (index after it, the base name of the symbol it starts, or None where it emitted
        all it read)."""
        s, t = self.s, self.t
        m = re.match(r"\\([A-Za-z]+)", s[i:])
        if not m:
            self.emit(s[i:i + 2], i)
            return i + 2, None
        cmd = m.group(1)
        j = i + m.end()
        part = self._PARTS.get(cmd)
        if part is not None:
            end = getattr(self, part)(i, j, cmd)
            if end is not None:
                return end, None
        if cmd in _OPTIMA and re.match(r"\s*_", s[j:]):
            return self.optimum(i, j, cmd), None
        if cmd in ("sum", "prod") and _named_sum(s, j):
            return self.named_sum(i, j, cmd), None
        if cmd in _ACCENTS:
            return self.accent(i, j, cmd)
        if cmd == "qname":
            inner, j = _brace_arg(s, j)
            return j, _tidy(inner)
        if cmd in _GREEK:
            return j, "\\" + cmd
        if cmd in _APPLIED and re.match(r"\s*\(", s[j:]):
            return j, "\\" + cmd                               # \sinh(x): an application, never sinh(x - ...)
        if cmd in _PASS:
            self.emit(s[i:j] + " ", i)
            return j, None
        raise _Fail("a command the parsers do not read", "\\" + cmd, t.at(i))

    _PARTS = {"nrm": "operator", "inn": "operator", "relu": "operator", "pdiff": "derivative", "nabla": "gradient",
              "copt": "constrained", "qcomp": "component", "dotsrun": "run_", "pwcases": "cases", "int": "int_or_lim",
              "lim": "int_or_lim"}

    def operator(self, i: int, j: int, cmd: str) -> int:
        r"""\nrm{sub}(x), \inn{sub}(a, b), \relu(x) (the cleanup's norms, inner products, positive parts): the named
        function applied to its arguments."""
        s, t, names = self.s, self.t, self.names
        arg = _brace_arg(s, j) if cmd == "nrm" or s[j:j + 1] == "{" else ("", j)
        sub = arg[0].strip() if arg else ""
        j = arg[1] if arg else j
        base = {"nrm": "\\|\\cdot\\|" + (f"_{{{sub}}}" if sub else ""), "inn": "\\langle\\cdot,\\cdot\\rangle",
                "relu": "(\\cdot)_{+}"}[cmd]
        m = re.match(r"\s*\(", s[j:])
        k = j + m.end() - 1 if m else -1
        close = _match_close(s, k, "(", ")") if m else -1
        if close > 0:
            args = [a for a, _ in _split_top(t[k + 1:close], re.compile(r"[,;]"))]
            if cmd == "inn":                               # <a, b>_{L_2}, <x>_{L_2}: the subscript names the form
                base = _inner_name(len(args), sub)
            self.emit(names.app(names.placeholder(base), args), i)
            return close + 1
        self.emit(names.placeholder(base), i)
        return j

    def derivative(self, i: int, j: int, cmd: str) -> int:
        r"""\pdiff{k}{v}{X} (`_derivatives`): Derivative(X, (v, k)) once parsed."""
        s, t = self.s, self.t
        parts, k = [], j
        for _ in range(3):
            a = k
            while a < len(s) and s[a] == " ":
                a += 1
            close = _match_close(s, a, "{", "}") if a < len(s) and s[a] == "{" else -1
            if close < 0:
                raise _Fail("a derivative the parsers do not read", "\\frac{\\partial", t.at(i))
            parts.append(t[a + 1:close])
            k = close + 1
        order, var, body = parts
        self.emit(self.names.app("\\diff", [body, var, order]), i)
        return k

    def gradient(self, i: int, j: int, cmd: str) -> int:
        r"""A gradient: an opaque named operator applied to its operand (\nabla_{w} L is \nabla_{w}(L)), which a
        notation map may define (symbols={"\\nabla_{w}": callable})."""
        s, t, names = self.s, self.t, self.names
        sc, k = _scripts(s, j)
        sub = _tidy(s[sc["_"][0]:sc["_"][1]]) if "_" in sc else ""
        if "^" in sc:
            raise _Fail("a gradient with a superscript", "\\nabla^", t.at(i))
        a = k
        while a < len(s) and s[a] == " ":
            a += 1
        end = _operand_end(s, a)
        if end is None:
            raise _Fail("a gradient (\\nabla) with no operand it can read", "\\nabla", t.at(i))
        body = t[a + 1:end - 1] if s[a] == "(" else t[a:end]
        self.emit(names.app(names.placeholder("\\nabla" + (f"_{{{sub}}}" if sub else "")), [body]), i)
        return end

    def optimum(self, i: int, j: int, cmd: str) -> int:
        r"""An optimum over a variable: an opaque named value of its objective, which runs to the end of the side (or
        of the group it stands in): \min_{u > 0} p(u) + c is the minimum of p(u) + c."""
        s, t, names = self.s, self.t, self.names
        sc, k = _scripts(s, j)
        sub = _untoken(_tidy(s[sc["_"][0]:sc["_"][1]]))
        end = len(s)
        for p, c in _depth_scan(s, k):
            end = p + 1
        if k >= len(s) or not s[k:end].strip():
            raise _Fail("an optimum with no objective", "\\" + cmd + "_", t.at(i))
        fname = f"\\{cmd}_{{{sub}}}" + (f"^{{{_tidy(s[sc['^'][0]:sc['^'][1]])}}}" if "^" in sc else "")
        self.emit(names.app(names.placeholder(fname), [t[k:end]]), i)
        return end

    def constrained(self, i: int, j: int, cmd: str) -> int:
        r"""constructs.constrained: \copt{\min_{S}}{objective}{constraint}...: the named constrained value."""
        s, t, names = self.s, self.t, self.names
        parts, k = [], j
        while re.match(r"\s*\{", s[k:]):
            a = k + re.match(r"\s*\{", s[k:]).end() - 1
            close = _match_close(s, a, "{", "}")
            parts.append(t[a + 1:close])
            k = close + 1
        sc, _k = _scripts(parts[0].s, len(re.match(r"\\[A-Za-z]+\s*", parts[0].s).group(0)))
        opt = re.match(r"\\[A-Za-z]+", parts[0].s).group(0)
        fname = opt + "".join(f"{p}{{{_untoken(_tidy(parts[0].s[sc[p][0]:sc[p][1]]))}}}" for p in "_^" if p in sc)
        key = names.placeholder(fname + "\\text{ s.t. }")
        self.emit(names.app("\\copt", [_T(key, [t.at(i)] * len(key)), *parts[1:]]), i)
        return k

    def component(self, i: int, j: int, cmd: str) -> int:
        return _component_app(self.t, j, self.names, self.emit, self.in_integral, i)

    def named_sum(self, i: int, j: int, cmd: str) -> int:
        s = self.s
        args, end = _named_sum(self.t, j, body=True)
        sc, _k = _scripts(s, j)
        fname = "\\" + cmd + "".join(f"{p}{{{_tidy(s[sc[p][0]:sc[p][1]])}}}" for p in "_^" if p in sc)
        self.emit(self.names.app(self.names.placeholder(fname), args), i)
        return end

    def run_(self, i: int, j: int, cmd: str) -> int:
        return _run_placeholder(self.s, j, self.names, self.emit, self.t.at(i))

    def cases(self, i: int, j: int, cmd: str) -> int:
        r"""\pwcases{value}{condition}... (`_cases`): a Piecewise once parsed."""
        s, t = self.s, self.t
        args, k = [], j
        while True:
            m2 = re.match(r"\s*\{", s[k:])
            if not m2:
                break
            a = k + m2.end() - 1
            close = _match_close(s, a, "{", "}")
            if close < 0:
                raise _Fail("an unclosed case distinction", "\\begin{cases}", t.at(i))
            args.append(t[a + 1:close])
            k = close + 1
        if not args or len(args) % 2:
            raise _Fail("a case distinction without conditions", "\\begin{cases}", t.at(i))
        self.emit(self.names.app("\\cases", args), i)
        return k

    def int_or_lim(self, i: int, j: int, cmd: str) -> int:
        r"""\int ... dx and \lim_{x \to a} ...: an Integral or Limit once parsed; a sign without its differential (or
        limit) passes through."""
        found = (_integral if cmd == "int" else _limit)(self.t, j)
        if found:
            args, end = found
            self.emit(self.names.app("\\" + cmd, args), i)
            return end
        self.emit(self.s[i:j] + " ", i)
        return j

    def accent(self, i: int, j: int, cmd: str) -> tuple[int, str]:
        r"""An accent or font over its argument: the base name it gives ("\hat{x}", "\mathcal{L}", "\operatorname{tr}";
        over an expression, \overline{\nabla f_\theta}, one name "\bar{\nabla f_{\theta}}")."""
        s, t, names = self.s, self.t, self.names
        base = None
        arg = _brace_arg(s, j)
        if arg is None:
            raise _Fail("an accent or font with no argument", "\\" + cmd, t.at(i))
        inner, j = arg
        inner = inner.strip()
        if cmd in ("text", "mathrm", "operatorname", "mathit", "mathsf") and re.fullmatch(r"[A-Za-z]{2,}", inner):
            base = f"\\operatorname{{{inner}}}" if cmd == "operatorname" else f"\\{cmd}{{{inner}}}"
            if cmd == "text":
                base = f"\\text{{{inner}}}"
        elif re.fullmatch(r"\\?[A-Za-z]+", inner) and (not inner.startswith("\\") or inner[1:] in _GREEK):
            if cmd in ("mathrm", "mathit", "text") and len(inner) == 1:
                base = inner
            else:
                base = f"\\{_ACCENTS[cmd]}{{{inner}}}"
        else:
            inner_t = _convert(_T(inner, [t.at(i)] * len(inner)), names, self.in_integral)
            if re.fullmatch(r"Q_\{z[a-z]{3}\}", inner_t.s.strip()):
                nm, idx = names.table["Q" + inner_t.s.strip()[3:-1]]
                base = f"\\{_ACCENTS[cmd]}{{{nm}}}" if not idx else None
            if base is None and _ACCENTS[cmd] in ("tilde", "hat", "bar"):
                # an accent over an expression, \overline{\nabla f_\theta}(x): one name (a map may bind it)
                base = f"\\{_ACCENTS[cmd]}{{{_tidy(' '.join(inner.split()))}}}"
            if base is None:
                raise _Fail("an accent or font over an expression", f"\\{cmd}{{{inner}}}", t.at(i))
        return j, base

    # -- letters and symbols -----------------------------------------------------------------------------------------

    def letter(self, i: int) -> tuple[int, str | None]:
        """A letter: a symbol's base, or an integral's differential d."""
        s, c = self.s, self.s[i]
        if c == "d" and self.in_integral and re.match(r"d\s*(?:[A-Za-z](?![A-Za-z])|\\[A-Za-z]+)", s[i:]) \
                and (i == 0 or not s[i - 1].isalpha() or s[i - 1] in "dxyzst"):
            self.emit("d ", i)
            return i + 1, None
        return i + 1, c

    def symbol(self, start: int, i: int, base: str) -> int:
        """The symbol whose base ends at s[i]: its scripts (name-like parts join its name, single letters become
        indices), then its placeholder, applied to a parenthesized group that follows it (f(x, y))."""
        s, t, names = self.s, self.t, self.names
        indices: list[str] = []
        subs: list[str] = []
        sups: list[str] = []
        while True:
            m = re.match(r"\s*(')+", s[i:])
            if m:
                sups.append("'" * m.group(0).count("'"))
                i += m.end()
                continue
            m = re.match(r"\s*([_^])", s[i:])
            if not m:
                break
            arg = _brace_arg(s, i + m.end())
            if arg is None:
                break
            content, j = arg
            content = content.strip()
            if m.group(1) == "_":
                parts = [p.strip() for p in content.split(",")]
                if all(_INDEX.fullmatch(p) for p in parts) and not any(p in ("\\min", "\\max", "\\rm") for p in parts):
                    indices += parts
                else:
                    subs.append(content)
                i = j
                continue
            # a name-like superscript (^{ft}, ^{(1)}, ^T, ^*) joins the name; letters followed by an argument
            # (e^{nf(t)}) or over the exponential's e (e^{nt}) are a power
            label = re.fullmatch(r"(\d+)\s*(T?)", content)
            if label and base != "e" and (base in names.labels or f"{base}^{{{label.group(1)}}}" in names.declared
                                          or (len(label.group(1)) >= 2 and base.lstrip("\\")[:1].isupper())):
                # a superscript label (#35: W^{21}, \Sigma^{31}, a declared W^{2}) joins the name, never a power; an
                # undeclared lower-case letter's x^{10} stays a power (layer labels go on capitals: weights, covariances)
                sups += [label.group(1)] + (["T"] if label.group(2) else [])
                i = j
                continue
            sm = _NAME_SUP.fullmatch(content)
            if sm and base == "e" and re.fullmatch(r"[A-Za-z]{2,}", sm.group(1)):
                sm = None
            if not sm:
                break
            sups.append(sm.group(1))
            rest = sm.group(2).strip()
            if rest:
                # "^{*2}": the name takes the star, the rest is a power
                pre = len(s[:j]) - 1 - len(rest) if s[j - 1] == "}" else j
                out_name = _tidy(base + (f"_{{{','.join(subs)}}}" if subs else "") + "".join(f"^{{{p}}}" for p in sups))
                self.emit(names.placeholder(out_name, tuple(indices)), start)
                self.emit("^{", j)
                self.out.append(_convert(_T(rest, [t.at(pre)] * len(rest)), names, self.in_integral))
                self.emit("}", j)
                return j
            i = j
        name = _tidy(base + (f"_{{{','.join(subs)}}}" if subs else "") + "".join(f"^{{{p}}}" for p in sups))
        m = re.match(r"\s*\(", s[i:])
        # x^T (A + B): a transpose times a group, never applied; b(s - a b) with b a bare value here: a product
        full = name + (f"_{{{','.join(indices)}}}" if indices else "")
        if m and name not in names.plain and base not in names.plain and full not in names.values \
                and not re.search(r"[\^_]\s*$", s[:start]) and not (sups and sups[-1] == "T"):
            k = i + m.end() - 1
            j = _match_close(s, k, "(", ")")
            if j > k + 1 and s[k + 1:j].strip():
                # a symbol followed by a parenthesized group is applied to it: f(x, y), \Gamma(n/2), w_h(t)
                args = [a for a, _ in _split_top(t[k + 1:j], re.compile(r"[,;]"))]
                self.emit(names.app(names.placeholder(name, tuple(indices)), args), start)
                return j + 1
        self.emit(names.placeholder(name, tuple(indices)), start)
        return i


_NAME_SUP = re.compile(r"(\(\s*[\w+\-]+\s*\)|T|\*+|\\star|\\ast|\\prime|\\perp|\\parallel|\+|\\dagger|\\text\{[^}]*\}|"
                       r"\\mathrm\{[^}]*\}|\\operatorname\{[^}]*\}|[A-Za-z]{2,}(?![A-Za-z]|\s*\())(.*)")
