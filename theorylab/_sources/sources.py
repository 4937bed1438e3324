"""Paper sources: every labelled display and numbered statement of a .tex or .md source, with its printed text.
Displays parse to SymPy relations via a NotationMap and latex2sympy2_extended (201 of the four papers' 228 labelled
displays with their notation maps; theorylab._pipeline.fidelity compares them with the steps that cite them). Parses are data
too (`parse_key`, `relations_to_json`): the built-in papers ship theirs beside their sources (`<source>.parses.json`,
keyed by PARSE_FORMAT, the parser's version, the text and the notation), so no machine parses them again.

The narrow interface of theorylab._sources: each name lives in one single-role module (#35 item 6) and is re-exported
here, so the pipeline, the tools and the tests import it from one place:
    printed.py   the records (Printed, SourceWarning, Printout)        notation.py  NotationMap
    reading.py   read_source and the Markdown reader                  tex.py       the LaTeX reader
    relations.py the printed relations (relation, Approx, Propto)     prepare.py   a display's LaTeX before parsing
    scan.py      the names table and scanned constructs               convert.py   symbols -> placeholders
    backends.py  the LaTeX parsers (PARSERS)                          matrices.py  matrix names in a parse
    parse.py     parse_display, parse_printed, parse_report           store.py     parses as data (parse_key, JSON)"""
from __future__ import annotations

from .backends import DEFAULT_PARSER as DEFAULT_PARSER, PARSERS as PARSERS
from .convert import _convert as _convert
from .matrices import _matrix_meaning as _matrix_meaning
from .notation import NotationMap as NotationMap
from .parse import (_parse_term as _parse_term, cut_sides as cut_sides, parse_display as parse_display,
                    parse_printed as parse_printed, parse_report as parse_report)
from .printed import Printed as Printed, Printout as Printout, SourceWarning as SourceWarning
from .reading import read_source as read_source
from .relations import Approx as Approx, Propto as Propto, relation as relation
from .store import (PARSE_FORMAT as PARSE_FORMAT, SHIPPED_SUFFIX as SHIPPED_SUFFIX, notation_key as notation_key,
                    parse_key as parse_key, parser_version as parser_version, read_parses as read_parses,
                    relations_from_json as relations_from_json, relations_to_json as relations_to_json,
                    shipped_path as shipped_path, write_parses as write_parses)
from .text import ParseFailure as ParseFailure, _T as _T

__all__ = ["Printed", "Printout", "SourceWarning", "ParseFailure", "NotationMap", "PARSERS", "DEFAULT_PARSER",
           "read_source", "parse_display", "parse_printed", "parse_report", "PARSE_FORMAT", "parse_key",
           "parser_version", "notation_key", "relations_to_json", "relations_from_json", "shipped_path",
           "read_parses", "write_parses"]
