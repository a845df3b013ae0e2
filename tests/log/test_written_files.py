"""Files the package writes: only over a regular file, with the umask's mode, cells left inert."""

from __future__ import annotations

import os
import stat

import pandas as pd
import pytest
from hostile import snapshot, user_files
from pydantic import BaseModel

from readout_audit import InputError
from readout_audit._util._jsonl import write_text_atomic
from readout_audit.log import check_output_path, records_frame, write_frame


def _specials(folder):
    """The user's entries that are not regular files: a FIFO, a device node if one was made, a
    link to the null device and a dangling link."""
    (folder / "to-null").symlink_to("/dev/null")
    (folder / "dangling").symlink_to(folder / "nowhere")
    names = ["pipe", "to-null", "dangling"] + (["null"] if (folder / "null").exists() else [])
    return [folder / name for name in names]


def test_only_a_regular_file_is_ever_replaced_even_forced(tmp_path):
    folder = user_files(tmp_path / "mine")
    specials = _specials(folder)
    before = snapshot(folder)
    for path in specials:
        with pytest.raises(InputError) as caught:
            check_output_path(path, option="out", force=True)
        assert str(caught.value).startswith(f"{path}, field 'out': is a ")
        assert "not a regular file: never replaced, even with --force" in str(caught.value)
        with pytest.raises(InputError, match="never replaced") as caught:
            check_output_path(path, option="out")  # the unforced hint never suggests --force
        assert "--force to overwrite" not in str(caught.value)
    check_output_path(folder / "my_notes.txt", option="out", force=True)  # a regular file may be
    assert snapshot(folder) == before


def test_a_new_file_gets_the_umasks_mode_and_a_replaced_one_keeps_its_own(tmp_path):
    previous = os.umask(0o027)
    try:
        write_text_atomic(tmp_path / "new.txt", "x")
        kept = tmp_path / "kept.txt"
        kept.write_text("old")
        kept.chmod(0o604)
        write_text_atomic(kept, "new")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640  # 0666 & ~027
    assert stat.S_IMODE(kept.stat().st_mode) == 0o604 and kept.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt", "new.txt"]


class Row(BaseModel):
    """A record with a text, an integer and a number column."""

    item_id: str
    doc_id: int | None
    score: float


def test_csv_text_cells_that_start_a_formula_are_quoted_and_numbers_are_not(tmp_path):
    texts = ["=1+1", "+SUM(A1)", "-2+3+cmd|' /C calc'!A0", "@A1", "\tx", "\rx", "plain", "-4.5"]
    rows = [Row(item_id=t, doc_id=-i, score=-0.5 - i) for i, t in enumerate(texts)]
    out = tmp_path / "rows.csv"
    write_frame(records_frame(rows, Row), out, "csv")
    read = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(read["item_id"]) == [
        "'=1+1",
        "'+SUM(A1)",
        "'-2+3+cmd|' /C calc'!A0",
        "'@A1",
        "'\tx",
        "'\rx",
        "plain",
        "-4.5",  # a plain number's text is a number, not a formula
    ]
    assert list(read["doc_id"]) == [str(-i) for i in range(len(texts))]
    assert list(read["score"]) == [str(-0.5 - i) for i in range(len(texts))]
    parquet = tmp_path / "rows.parquet"
    write_frame(records_frame(rows, Row), parquet, "parquet")
    assert list(pd.read_parquet(parquet)["item_id"]) == texts  # parquet keeps every cell


@pytest.mark.parametrize("table_format", ["csv", "parquet"])
def test_integers_up_to_2_64_minus_1_are_exported_exactly(tmp_path, table_format):
    top = (1 << 64) - 1
    rows = [Row(item_id="a", doc_id=top, score=0.0), Row(item_id="b", doc_id=None, score=1.0)]
    frame = records_frame(rows, Row)
    assert str(frame["doc_id"].dtype) == "UInt64" and frame["doc_id"][0] == top
    out = write_frame(frame, tmp_path / f"rows.{table_format}", table_format)
    if table_format == "csv":
        assert out.read_bytes().split(b"\r\n")[1:] == [f"a,{top},0.0".encode(), b"b,,1.0", b""]
    else:
        assert pd.read_parquet(out)["doc_id"].tolist() == [top, pd.NA]
    mixed = records_frame([*rows, Row(item_id="c", doc_id=-1, score=2.0)], Row)
    assert mixed["doc_id"].tolist() == [str(top), pd.NA, "-1"]  # no integer type holds both
