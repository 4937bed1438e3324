"""Dev script: the README's accuracy block from a published accuracy map (not part of the engine).

`theorylab accuracy --jobs 2 --json benchmarks/accuracy_quick.json` measures the map; this script turns that JSON
into the block between README_MARKERS in README.md (how the map was made, then `accuracy.markdown(data)`), and
tests/test_accuracy.py keeps the README's block equal to `readme_section(json)`. The engine never writes README.md.
Run: python benchmarks/readme_accuracy.py MAP.json [README.md]   (one argument: print the block; two: rewrite it)
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

from theorylab._tools.accuracy import markdown, worst_rows

README_MARKERS = ("<!-- accuracy-table:start -->", "<!-- accuracy-table:end -->")
PUBLISHED_JSON = "benchmarks/accuracy_quick.json"
COMMAND = "python benchmarks/readme_accuracy.py"


def readme_section(data: Mapping[str, Any]) -> str:
    """README's accuracy block: how the map was made (command, profile, time), then `markdown(data)`."""
    entries = data["entries"]
    cpu = sum(m.get("cpu_seconds", 0.0) for m in entries)
    meets = sum(all(r["meets"] for r in worst_rows([m])) for m in entries)
    head = (f"The map of every built-in entry, profile {data.get('profile')}: `theorylab accuracy --jobs 2 --json "
            f"{PUBLISHED_JSON}`, then `{COMMAND} {PUBLISHED_JSON} README.md` writes this block "
            f"(a test keeps it equal to the JSON and the JSON's entries equal to the built-in catalogue). {meets} of "
            f"{len(entries)} entries meet their bound. {cpu:.0f} CPU s in the workers, {data.get('seconds', 0):.0f} s "
            "wall (on a shared machine under load: on 2 free cores the wall time is about half the CPU time). Per "
            "entry and output the worst region; `points` counts the distinct points measured, `over budget` those "
            "whose reference took more than the profile's CPU budget per point (listed below, not measured).")
    head = textwrap.fill(head, 117, break_long_words=False, break_on_hyphens=False)
    return f"### The accuracy map\n\n{head}\n\n{markdown(data)}"


def update_readme(text: str, data: Mapping[str, Any]) -> str:
    """`text` (README.md) with the block between README_MARKERS replaced by `readme_section(data)`; ValueError in
    one line when the markers are missing."""
    start, end = README_MARKERS
    if start not in text or end not in text:
        raise ValueError(f"README must contain {start} ... {end}; it does not")
    a, b = text.index(start) + len(start), text.index(end)
    return text[:a] + "\n" + readme_section(data) + "\n" + text[b:]


def main(argv: Sequence[str] | None = None) -> int:
    """MAP.json [README.md]: print the README block, or rewrite it in README.md."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not 1 <= len(args) <= 2:
        print(f"usage: {COMMAND} MAP.json [README.md]", file=sys.stderr)
        return 2
    data = json.loads(Path(args[0]).read_text())
    if len(args) == 1:
        print(readme_section(data))
    else:
        Path(args[1]).write_text(update_readme(Path(args[1]).read_text(), data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
