import numpy as np
import pytest

from readout_audit._exceptions import RunDirectoryError
from readout_audit.recover._store import HIDDEN_FILE, HiddenLayout, HiddenWriter, read_hidden


def test_rows_append_and_read_back_exactly(tmp_path):
    layout = HiddenLayout(layers=(3, 7), dim=4)
    writer = HiddenWriter(tmp_path, layout)
    rows = np.random.default_rng(0).normal(size=(3, 2, 2, 4)).astype(np.float32)
    assert [writer.append(r) for r in rows] == [0, 1, 2]
    np.testing.assert_array_equal(read_hidden(tmp_path, layout), rows)
    assert (tmp_path / HIDDEN_FILE).stat().st_size == 3 * layout.row_bytes == 3 * 64


def test_a_row_cut_short_is_dropped_on_resume(tmp_path):
    layout = HiddenLayout(layers=(1,), dim=3)
    writer = HiddenWriter(tmp_path, layout)
    writer.append(np.ones((2, 1, 3)))
    with (tmp_path / HIDDEN_FILE).open("ab") as handle:
        handle.write(b"\x00" * 5)  # an interrupted write
    resumed = HiddenWriter(tmp_path, layout)
    assert resumed.rows == 1 and resumed.append(np.full((2, 1, 3), 2.0)) == 1
    stored = read_hidden(tmp_path, layout)
    assert stored.shape == (2, 2, 1, 3) and stored[1].max() == 2.0


def test_wrong_shape_and_missing_file_are_clear(tmp_path):
    layout = HiddenLayout(layers=(1,), dim=3)
    with pytest.raises(ValueError, match=r"shape \(2, 1, 4\)"):
        HiddenWriter(tmp_path, layout).append(np.zeros((2, 1, 4)))
    with pytest.raises(RunDirectoryError, match="missing"):
        read_hidden(tmp_path / "elsewhere", layout)


def test_layout_round_trips_through_the_manifest():
    layout = HiddenLayout(layers=(15, 30), dim=576)
    assert HiddenLayout.from_config(layout.as_config()) == layout
