"""Figures of a paper: typed records naming the evidence they draw, and the plotting helpers they share.

A check tags the records a figure draws with `SERIES.tag(...)`; the figure declares `draws=(SERIES, ...)` and
reads them with `data.points(SERIES)`: one object shared by both sides, never a string typed twice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

__all__ = ["Series", "Figure", "FigureData", "pyplot", "legend", "no_data", "as_array"]


@dataclass(frozen=True)
class Series:
    """A set of evidence records a figure draws, named by `key` (unique within its paper)."""

    key: str

    def tag(self, **extra: Any) -> dict:
        """The `extra` of an Evidence record that belongs to this series, with the coordinates it is drawn at."""
        return {"figure": self.key, **extra}

    def holds(self, record: dict) -> bool:
        extra = record.get("extra")
        return isinstance(extra, dict) and extra.get("figure") == self.key


@dataclass(frozen=True, kw_only=True)
class Figure:
    """A figure of a paper: drawn under `family` in the report by `draw(data)`, which returns a matplotlib figure.

    `draws` lists the series of evidence it reads (none: a theory-only figure, evaluated from the entries)."""

    family: str
    name: str
    caption: str
    draw: Callable[["FigureData"], Any]
    draws: tuple[Series, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "draws", tuple(self.draws))
        if not all(isinstance(s, Series) for s in self.draws):
            raise ValueError(f"Figure {self.name}: draws must be Series records; got {self.draws!r}")


class FigureData:
    """What a figure's draw function reads: the points of the series it declared (records as JSON dicts)."""

    def __init__(self, figure: Figure, evidence: Iterable[dict]):
        self.figure = figure
        self._evidence = [r for r in evidence if any(s.holds(r) for s in figure.draws)]

    def points(self, series: Series) -> list[dict]:
        if series not in self.figure.draws:
            raise ValueError(f"figure {self.figure.name} reads series {series.key!r} without declaring it in draws")
        return [r for r in self._evidence if series.holds(r)]


def pyplot():
    """matplotlib.pyplot on the Agg backend with the report's style (imported on first use)."""
    import matplotlib  # lazy: matplotlib costs ~1 s of start-up; only figures need it

    matplotlib.use("Agg")  # no display needed, and no window opened
    import matplotlib.pyplot as plt  # lazy: after use("Agg"), which must precede the first pyplot import

    plt.rcParams.update({"figure.dpi": 100, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                         "svg.hashsalt": "theorylab"})  # stable SVG ids: the same data give the same file
    return plt


def legend(ax, **kw) -> None:
    """A legend only where something is labelled (a record without points draws only the theory)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} in this evidence record", ha="center", va="center", transform=ax.transAxes)


def as_array(x) -> np.ndarray:
    return np.asarray(x, dtype=float)  # JSON keeps non-finite values as the strings "nan"/"inf"
