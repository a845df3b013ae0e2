"""Finding displayed equations: nesting, bracket and dollar forms, verbatim, graphics."""

from __future__ import annotations

from readout_audit.lift import find_displays


def spans(text: str) -> list[tuple[str, str, str, str]]:
    return [
        (d.env, d.opening, text[d.body_start : d.body_end], d.closing) for d in find_displays(text)
    ]


def test_nested_environments_stay_inside_their_display():
    text = (
        "a \\begin{equation}\\begin{cases} x & y\\end{cases}\\end{equation} b "
        "\\begin{align}\\begin{aligned} u\\end{aligned} \\begin{split} v \\end{split}\\end{align}"
    )
    assert spans(text) == [
        ("equation", "\\begin{equation}", "\\begin{cases} x & y\\end{cases}", "\\end{equation}"),
        (
            "align",
            "\\begin{align}",
            "\\begin{aligned} u\\end{aligned} \\begin{split} v \\end{split}",
            "\\end{align}",
        ),
    ]


def test_a_nested_same_name_environment_does_not_close_the_outer_one():
    text = "\\begin{gather*} a \\begin{gather*} b \\end{gather*} c \\end{gather*} after"
    assert spans(text) == [
        ("gather*", "\\begin{gather*}", " a \\begin{gather*} b \\end{gather*} c ", "\\end{gather*}")
    ]


def test_bracket_and_dollar_displays_and_a_line_break_with_an_optional_argument():
    text = "x \\[ a \\\\[2pt] b \\] y $$ c $$ z \\\\[3pt] w"
    assert spans(text) == [("\\[", "\\[", " a \\\\[2pt] b ", "\\]"), ("$$", "$$", " c ", "$$")]


def test_the_outermost_display_wins():
    text = (
        "$$ \\[ a \\] $$ \\[ \\begin{equation} b \\end{equation} \\] "
        "\\begin{align} $$ c $$ \\end{align}"
    )
    assert [d.env for d in find_displays(text)] == ["$$", "\\[", "align"]
    assert [d.index for d in find_displays(text)] == [0, 1, 2]


def test_displays_in_verbatim_environments_and_verb_spans_are_skipped():
    text = (
        "\\begin{verbatim}\\begin{equation} a \\end{equation}\\end{verbatim}"
        "\\begin{lstlisting}\\[ b \\]\\end{lstlisting}"
        "\\verb|\\begin{align}| \\verb+$$+ "
        "\\begin{comment} $$ c $$ \\end{comment}"
        "\\begin{equation} d \\end{equation}"
    )
    assert spans(text) == [("equation", "\\begin{equation}", " d ", "\\end{equation}")]


def test_graphics_markup_marks_a_display():
    text = (
        "\\[ \\begin{tikzcd} a \\end{tikzcd} \\] "
        "\\begin{equation}\\includegraphics{f}\\end{equation}"
        " $$ \\begin{array}{c} b \\end{array} $$"
    )
    assert [d.graphics for d in find_displays(text)] == [True, True, False]


def test_a_display_never_closed_is_skipped_and_scanning_goes_on():
    text = "\\begin{equation} open \\[ a \\]"
    assert spans(text) == [("\\[", "\\[", " a ", "\\]")]
