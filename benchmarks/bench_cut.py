r"""Wall time of ``lift cut`` (read, clean, cut both ways) on hostile and large TeX (not a test).

Run: .venv/bin/python benchmarks/bench_cut.py [--json OUT]

Sources, written to a temporary folder: 20, 80 and 320 kB of unclosed ``\[`` displays, and a
20 MB paper made of the project's own example and fixture TeX bodies repeated. A linear cutter
takes about four times as long on four times the input; the ratios are printed.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from readout_audit.lift import CutSettings, cut_equations, cut_prose, read_papers

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [*sorted((ROOT / "examples" / "tex").glob("*.tex"))]
SOURCES += sorted((ROOT / "tests" / "fixtures" / "tex").glob("*.tex"))


def unclosed(size: int) -> str:
    line = "x \\[ a = b\n"
    return "\\begin{document}\n" + line * (size // len(line)) + "\\end{document}\n"


def realistic(size: int) -> str:
    """``size`` characters of real paper bodies, repeated, in one document."""
    bodies = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8", errors="replace")
        start, end = text.find("\\begin{document}"), text.rfind("\\end{document}")
        bodies.append(text[start + len("\\begin{document}") : end if end > 0 else None])
    joined, parts = "\n\n".join(bodies), []
    while sum(map(len, parts)) < size:
        parts.append(joined)
    return (
        "\\documentclass{article}\n\\begin{document}\n"
        + "".join(parts)[:size]
        + "\n\\end{document}\n"
    )


def cut_seconds(folder: Path, name: str, text: str) -> dict[str, float]:
    path = folder / f"{name}.tex"
    path.write_text(text, encoding="utf-8")
    started = time.perf_counter()
    (paper,) = read_papers([path])
    equations, _ = cut_equations(paper, CutSettings(min_cuts=1))
    prose, _ = cut_prose(paper, CutSettings(kind="prose", min_cuts=1))
    seconds = time.perf_counter() - started
    cuts = f"{len(equations)} + {len(prose)} cuts"
    print(f"{name:>22}: {len(text) / 1e6:7.2f} MB  {seconds:8.2f} s  ({cuts})")
    return {"chars": len(text), "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for kb in (20, 80, 320):
            figures[f"unclosed_{kb}kB"] = cut_seconds(
                folder, f"unclosed-{kb}kB", unclosed(kb * 1000)
            )
        figures["realistic_20MB"] = cut_seconds(folder, "realistic-20MB", realistic(20_000_000))
    for small, large in (("unclosed_20kB", "unclosed_80kB"), ("unclosed_80kB", "unclosed_320kB")):
        ratio = figures[large]["seconds"] / max(figures[small]["seconds"], 1e-9)
        print(f"{large} / {small}: {ratio:.1f}x the time for 4x the input")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
