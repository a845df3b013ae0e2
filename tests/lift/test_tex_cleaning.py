"""Cleaning TeX as the cutter reads it: comments, ``\\iffalse`` blocks, the document body."""

from __future__ import annotations

from readout_audit.lift import clean_tex
from readout_audit.lift._tex import remove_iffalse, strip_comments


def test_a_percent_after_an_odd_run_of_backslashes_is_text_and_after_an_even_run_a_comment():
    text = "50\\% off % a comment\nline break\\\\% gone\nthree \\\\\\% kept  \n"
    assert strip_comments(text) == "50\\% off\nline break\\\\\nthree \\\\\\% kept\n"


def test_lines_are_right_stripped_and_a_comment_line_becomes_blank():
    assert strip_comments("a  \t\n% only a comment\r\nb ") == "a\n\nb"


def test_iffalse_blocks_go_with_the_conditionals_nested_inside_them():
    text = "keep \\iffalse hidden \\ifx\\a\\b no \\fi still hidden \\fi kept \\iff too"
    assert remove_iffalse(text) == "keep  kept \\iff too"


def test_an_iffalse_never_closed_hides_the_rest():
    assert remove_iffalse("a \\iffalse b") == "a "


def test_only_the_body_is_kept_and_an_end_document_in_verbatim_is_not_the_end():
    text = (
        "\\documentclass{article} % preamble\n\\begin{document}\nBody.\n"
        "\\begin{verbatim}\n\\end{document}\n\\end{verbatim}\n"
        "\\verb|\\end{document}| more\n\\end{document}\ntrailing"
    )
    assert clean_tex(text) == (
        "\nBody.\n\\begin{verbatim}\n\\end{document}\n\\end{verbatim}\n"
        "\\verb|\\end{document}| more\n"
    )


def test_a_text_without_a_document_environment_is_kept_whole():
    assert clean_tex("a % c\n\\iffalse x\\fi b") == "a\n b"
