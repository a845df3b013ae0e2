"""Equation-suffix cuts on hand-written papers, each rule worked by hand."""

from __future__ import annotations

import hashlib

from readout_audit.lift import CutSettings, TexPaper, cut_equations, equation_body, seed_for
from readout_audit.lift._equation_cuts import sites

FILLER = "lorem ipsum dolor sit amet\n" * 400  # 10,800 characters
ONE = CutSettings(min_cuts=1)
"""These tests are about cutting one paper, not admitting it: a single qualifying cut is enough."""
EQUATION = "\n" + "a" * 60 + " =   \n" + "b" * 30 + "\\label{e:1}" + "b" * 30 + "  \n\n"


def paper(text: str, paper_id: str = "p") -> TexPaper:
    return TexPaper(paper_id, f"{paper_id}.tex", text, "0" * 64)


def display(body: str, env: str = "equation") -> str:
    return f"\\begin{{{env}}}{body}\\end{{{env}}}\n"


def test_the_body_drops_labels_trailing_spaces_and_outer_blank_lines_and_maps_offsets():
    body, offsets = equation_body(EQUATION, 100)
    assert body == "a" * 60 + " =\n" + "b" * 60
    assert offsets[0] == 101  # the first "a", after the leading newline
    assert offsets[62] == 166  # the newline ending the first line, after " =   "
    assert offsets[63] == 167  # the first "b"
    assert offsets[-1] == 100 + 67 + 30 + 11 + 30 - 1  # the last "b", after the label


def test_a_cut_after_the_only_relation_with_its_offsets_mapping_back_to_the_text():
    text = FILLER + display(EQUATION) + "After.\n"
    cuts, stats = cut_equations(paper(text), ONE)
    (cut,) = cuts
    start = len(FILLER)
    body_start = start + len("\\begin{equation}")
    assert (cut.key, cut.id, cut.env, cut.operator) == ("eq0", "p:eq0", "equation", "=")
    assert (cut.opening, cut.closing) == ("\\begin{equation}", "\\end{equation}")
    assert cut.prefix == "a" * 60 + " =\n"
    assert cut.target == "b" * 60
    assert (cut.display_start, cut.cut_offset, cut.target_end) == (
        start,
        body_start + 67,
        body_start + 138,
    )
    assert text[cut.cut_offset : cut.target_end] == "b" * 30 + "\\label{e:1}" + "b" * 30
    assert equation_body(text[cut.cut_offset : cut.target_end])[0] == cut.target
    assert cut.context == FILLER[-10_000:].rstrip()
    assert cut.target_sha256 == hashlib.sha256(b"b" * 60).hexdigest()
    assert cut.paper_sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert (stats.found, stats.cuts) == (1, 1)


def test_sites_follow_relations_and_low_depth_signs():
    assert sites("f:=g") == [(3, ":=")]
    assert sites("a\\le b") == [(5, "\\le")]
    assert sites("a\\leq b \\in c") == [(6, "\\leq"), (12, "\\in")]
    # + and - at brace depth <= 1, never first, never after _ ^ \ { ( [
    assert sites("a+b_{-c}+{d+e}+{{f-g}}") == [(2, "+"), (9, "+"), (12, "+"), (15, "+")]
    assert sites("-a^-b(-c)[-d]") == []


def test_left_index_and_other_longer_commands_are_not_sites():
    assert sites("aaaa\\left(b\\right)") == []
    assert sites("x\\index{y} \\geqslant \\tolerance \\simeq z") == [(39, "\\simeq")]
    text = FILLER + display("aaaa\\left(b\\right)" + "c" * 60)
    assert cut_equations(paper(text), ONE)[1].rejected["no_site"] == 1


def test_only_the_middle_third_is_searched_and_the_site_nearest_the_middle_wins():
    # L = 123; the middle third is 41..82; sites at 3 (too early), 63, 80 and 120 (too late)
    body = "x =" + "a" * 57 + " = " + "b" * 17 + "+" + "c" * 39 + "=" + "d" * 2
    assert len(body) == 123
    assert [pos for pos, _ in sites(body)] == [3, 63, 81, 121]
    settings = CutSettings(min_target=1, min_cuts=1)
    (cut,) = cut_equations(paper(FILLER + display(body)), settings)[0]
    assert cut.prefix == body[:63]


def test_short_long_and_graphics_displays_give_no_cut_and_are_counted():
    text = (
        FILLER
        + display("x = y")
        + display("a" * 600 + "=" + "b" * 600)
        + display("a" * 60 + "=" + "b" * 60 + "\\includegraphics{f}")
    )
    cuts, stats = cut_equations(paper(text), ONE)
    assert cuts == []
    assert (stats.found, stats.rejected["target_short"], stats.rejected["target_long"]) == (3, 1, 1)
    assert stats.rejected["graphics"] == 1


def test_a_paper_under_ten_thousand_characters_has_no_cut():
    cuts, stats = cut_equations(paper("Short paper.\n" + display(EQUATION)), ONE)
    assert (cuts, stats.found, stats.rejected["context"]) == ([], 1, 1)


def test_a_target_the_predictor_can_read_in_its_context_is_dropped():
    text = FILLER + "b" * 60 + "\n" + display(EQUATION)
    cuts, stats = cut_equations(paper(text), ONE)
    assert (cuts, stats.rejected["target_in_context"]) == ([], 1)


def test_bracket_and_dollar_displays_are_cut_with_their_delimiters():
    text = FILLER + "\\[" + EQUATION + "\\]\n$$ u = " + "v" * 20 + "+ w" + "x" * 40 + " $$\n"
    cuts = cut_equations(paper(text), CutSettings(min_target=1, min_cuts=1))[0]
    assert [(c.key, c.env, c.opening, c.closing) for c in cuts] == [
        ("eq0", "\\[", "\\[", "\\]"),
        ("eq1", "$$", "$$", "$$"),
    ]
    # body " u = v..v+ wx..x" (L = 68, middle third 22..46): the + at 25 is the only site there
    assert (cuts[1].prefix, cuts[1].target) == (" u = " + "v" * 20 + "+ ", "w" + "x" * 40)


def many_displays(count: int) -> str:
    return FILLER + "".join(display(f"{'a' * 60} = {i:03d}{'c' * 57}") for i in range(count))


def test_at_most_ten_cuts_one_from_each_contiguous_bucket_seeded_by_paper():
    text = many_displays(25)  # buckets of 3, 3, 3, 3, 3, 2, 2, 2, 2, 2 displays
    picks = {
        seed: [c.key for c in cut_equations(paper(text), CutSettings(seed=seed, min_cuts=1))[0]]
        for seed in (0, 1)
    }
    bounds = [0, 3, 6, 9, 12, 15, 17, 19, 21, 23, 25]
    for keys in picks.values():
        indexes = [int(key.removeprefix("eq")) for key in keys]
        assert len(indexes) == 10
        assert all(lo <= i < hi for i, lo, hi in zip(indexes, bounds[:-1], bounds[1:], strict=True))
    assert picks[0] != picks[1]
    assert picks[0] == [c.key for c in cut_equations(paper(text), ONE)[0]]
    assert cut_equations(paper(text), ONE)[1].rejected["over_quota"] == 15


def test_ten_or_fewer_qualifying_cuts_are_all_kept():
    cuts, stats = cut_equations(paper(many_displays(10)), ONE)
    assert [c.key for c in cuts] == [f"eq{i}" for i in range(10)]
    assert stats.rejected["over_quota"] == 0


def test_a_papers_seed_is_the_first_eight_bytes_of_its_sha256():
    assert seed_for(0, "p") == int(hashlib.sha256(b"0:p").hexdigest()[:16], 16)
    assert seed_for(0, "p") != seed_for(1, "p")


def test_a_paper_with_fewer_than_ten_qualifying_cuts_is_not_admitted():
    cuts, stats = cut_equations(paper(many_displays(9)))
    assert cuts == [] and not stats.admitted and stats.rejected["too_few_cuts"] == 9
    cuts, stats = cut_equations(paper(many_displays(10)))
    assert len(cuts) == 10 and stats.admitted and stats.rejected["too_few_cuts"] == 0
    assert cut_equations(paper(many_displays(9)), CutSettings(min_cuts=9))[1].admitted
