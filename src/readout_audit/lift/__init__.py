"""Likelihood lift (seed 001): forecasts of hidden TeX continuations scored by a fixed scorer."""

from readout_audit.lift._cut import Cut, CutKind
from readout_audit.lift._cutfile import CutManifest, cut_papers, cut_table, read_cuts, write_cuts
from readout_audit.lift._displays import Display, find_displays
from readout_audit.lift._equation_cuts import cut_equations, equation_body
from readout_audit.lift._prose_cuts import cut_prose
from readout_audit.lift._select import CutSettings, PaperStats, seed_for
from readout_audit.lift._sources import TexPaper, read_papers
from readout_audit.lift._tex import clean_tex

__all__ = [
    "Cut",
    "CutKind",
    "CutManifest",
    "CutSettings",
    "Display",
    "TexPaper",
    "PaperStats",
    "clean_tex",
    "cut_equations",
    "cut_papers",
    "cut_prose",
    "cut_table",
    "equation_body",
    "find_displays",
    "read_cuts",
    "read_papers",
    "seed_for",
    "write_cuts",
]
