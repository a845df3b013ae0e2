"""Items are rendered, encoded and checked against the window before any scoring."""

from __future__ import annotations

import pytest

from readout_audit import InputError, Item
from readout_audit.model import TextCodec
from readout_audit.scoring import prepare


@pytest.fixture
def small_window(hf_tokenizer):
    return TextCodec(hf_tokenizer, name="small", context_window=12)


def test_options_longer_than_the_window_name_the_field(small_window):
    item = Item(
        id="opt",
        prompt="one two three",
        options=[" a", " four five six seven eight nine ten eleven twelve thirteen"],
    )
    with pytest.raises(InputError) as error:
        prepare(item, small_window, greedy_tokens=0)
    assert error.value.item_id == "opt" and error.value.field == "options"
    assert "window of 12" in str(error.value)


def test_greedy_continuation_must_fit(small_window):
    item = Item(id="g", messages=[{"role": "user", "content": "hi"}], options=["x"])
    with pytest.raises(InputError) as error:
        prepare(item, TextCodec(small_window._tok, name="w", context_window=40), greedy_tokens=30)
    assert error.value.field == "messages"


def test_prepared_item_carries_encodings(small_window):
    item = Item(id="ok", prompt="one two", options=[" three", " four"])
    prepared = prepare(item, small_window, greedy_tokens=2)
    assert [e.option for e in prepared.encodings] == [" three", " four"]
    assert all(e.boundary_preserved for e in prepared.encodings)
    assert prepared.rendering.text == "one two"


def test_batches_keep_jobs_with_one_context_together(model):
    from readout_audit.kind import Job
    from readout_audit.model import batches
    from readout_audit.readout._position import position_request

    same = Item(id="a", prompt="Shared context", options=["x"])
    prepared = [
        prepare(Item(id="0", prompt="First", options=["x"]), model.codec),
        prepare(same, model.codec),
        prepare(same.model_copy(update={"id": "b"}), model.codec),
        prepare(Item(id="3", prompt="Last", options=["x"]), model.codec),
    ]
    jobs = [Job(p.key, position_request(p.rendering, p.encodings), p) for p in prepared]
    assert jobs[1].request.context == jobs[2].request.context  # "a" and "b" share a context
    assert jobs[0].request.context != jobs[1].request.context
    grouped = batches(jobs, 2)
    assert [[j.key[0] for j in batch] for batch in grouped] == [["0", "a", "b"], ["3"]]
    assert [len(b) for b in batches(jobs, 1)] == [1, 2, 1]
    with pytest.raises(InputError, match="batch size must be at least 1"):
        batches(jobs, 0)


def test_a_context_window_error_names_the_file_and_line(small_window, tmp_path):
    from readout_audit import load_items

    path = tmp_path / "items.jsonl"
    path.write_text(
        '{"id": "fits", "prompt": "one", "options": [" two"]}\n'
        '{"id": "long", "prompt": "one two three four five six seven eight nine ten", '
        '"options": [" a"]}\n'
    )
    fits, long = load_items(path)
    prepare(fits, small_window, greedy_tokens=2)
    with pytest.raises(InputError, match=rf"^{path}:2, item 'long', field 'prompt': context"):
        prepare(long, small_window, greedy_tokens=4)
