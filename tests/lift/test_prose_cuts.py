"""Prose/TeX cuts: blocks between top-level blank lines, targets of whole blocks."""

from __future__ import annotations

from readout_audit.lift import CutSettings, TexPaper, cut_prose
from readout_audit.lift._prose_cuts import blocks

FILLER = "lorem ipsum dolor sit amet\n" * 400  # 10,800 characters, one block


def paper(text: str) -> TexPaper:
    return TexPaper("p", "p.tex", text, "0" * 64)


def test_blank_lines_inside_environments_braces_and_displays_do_not_split_blocks():
    text = (
        "One.\n\nTwo \\begin{itemize}\n\\item a\n\n\\item b\n\\end{itemize} still two.\n\n"
        "Three \\footnote{x\n\ny} and \\[ a\n\nb \\] three.\n\n"
        "\\begin{verbatim}\n{\n\n\\end{verbatim}\n"
        "\n\nFour."
    )
    assert [text[s:e] for s, e in blocks(text)] == [
        "One.",
        "Two \\begin{itemize}\n\\item a\n\n\\item b\n\\end{itemize} still two.",
        "Three \\footnote{x\n\ny} and \\[ a\n\nb \\] three.",
        "\\begin{verbatim}\n{\n\n\\end{verbatim}",
        "Four.",
    ]


def test_an_unclosed_brace_or_environment_does_not_swallow_the_rest():
    text = "A |\\begin{aligned}| quoted.\n\nB \\{ brace.\n\nC } stray.\n\nD."
    assert [text[s:e] for s, e in blocks(text)] == [
        "A |\\begin{aligned}| quoted.",
        "B \\{ brace.",
        "C } stray.",
        "D.",
    ]


def test_the_target_is_whole_blocks_within_the_budget():
    first, second, third, last = "x" * 150, "y" * 100, "z" * 1800, "q" * 150
    text = FILLER + "\n" + first + "\n\n" + second + "\n\n" + third + "\n\n" + last + "\n"
    cuts, stats = cut_prose(paper(text), CutSettings(kind="prose", min_cuts=1))
    assert stats.found == 5
    assert stats.rejected["context"] == 1  # the filler starts at 0
    assert stats.rejected["target_short"] == 1  # the last block alone: 150 < 200
    # block2 lies inside block1's target: targets never overlap
    assert [c.key for c in cuts] == ["block1", "block3"] and stats.rejected["target_overlap"] == 1
    # block1: 150 + 2 + 100 = 252 characters; adding block3 would make 2,054
    assert cuts[0].target == first + "\n\n" + second
    assert cuts[0].cut_offset == len(FILLER) + 1
    assert cuts[0].context == (FILLER + "\n")[-10_000:].rstrip()
    assert cuts[1].target == third + "\n\n" + last  # 1,952 characters


def test_a_first_block_over_the_budget_is_cut_to_its_first_characters():
    text = FILLER + "\n\\begin{proof}\n" + "w" * 2500 + "\n\\end{proof}\n"
    (cut,) = cut_prose(paper(text), CutSettings(kind="prose", min_cuts=1))[0]
    assert cut.target == "\\begin{proof}\n" + "w" * 1986
    assert cut.target_end - cut.cut_offset == 2000


def test_a_paper_under_ten_thousand_characters_has_no_prose_cut():
    cuts, stats = cut_prose(paper("Short.\n\n" + "x" * 500))
    assert (cuts, stats.found, stats.rejected["context"]) == ([], 2, 2)


def test_a_layout_wrapper_is_transparent():
    body = "\n\n".join(f"Paragraph {i}: " + "words " * 60 for i in range(4))
    text = FILLER + "\n\\begin{doublespace}\n" + body + "\n\\end{doublespace}\n"
    wrapped = [text[s:e] for s, e in blocks(text)]
    paragraphs = [b for b in wrapped if "Paragraph" in b]
    assert [b.count("Paragraph") for b in paragraphs] == [1, 1, 1, 1]  # each its own block
    cuts, _ = cut_prose(paper(text), CutSettings(kind="prose", min_cuts=1))
    assert cuts  # one environment around the body no longer hides every paragraph
    # a real environment stays one block
    boxed = FILLER + "\n\\begin{proof}\n" + body + "\n\\end{proof}\n"
    proof = [boxed[s:e] for s, e in blocks(boxed) if "Paragraph" in boxed[s:e]]
    assert [b.count("Paragraph") for b in proof] == [4]
