"""A GGUF file's weights type from its header walk, against the ``gguf`` package's reader."""

from __future__ import annotations

import struct

import gguf

from readout_audit.model import embedded_gguf_path, gguf_quantisation


def _reader_file_type(path) -> str:
    field = gguf.GGUFReader(str(path)).fields["general.file_type"]
    return gguf.LlamaFileType(int(field.parts[field.data[0]][0])).name.removeprefix("MOSTLY_")


def _gguf_bytes(pairs: list[tuple[str, int, bytes]]) -> bytes:
    """A GGUF v3 header with these key-value pairs (no tensors)."""
    out = b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs))
    for key, kind, value in pairs:
        out += struct.pack("<Q", len(key)) + key.encode() + struct.pack("<I", kind) + value
    return out


def _strings(*texts: str) -> bytes:
    return struct.pack("<IQ", 8, len(texts)) + b"".join(
        struct.pack("<Q", len(t)) + t.encode() for t in texts
    )


def test_the_embedded_file_reads_as_the_gguf_reader_reads_it():
    path = embedded_gguf_path()
    assert gguf_quantisation(path) == _reader_file_type(path) == "Q4_1"


def test_arrays_strings_and_scalars_before_the_key_are_skipped(tmp_path):
    path = tmp_path / "made.gguf"
    path.write_bytes(
        _gguf_bytes(
            [
                ("general.name", 8, struct.pack("<Q", 4) + b"made"),
                ("tokenizer.ggml.tokens", 9, _strings("a", "bb", "")),
                ("tokenizer.ggml.scores", 9, struct.pack("<IQ3f", 6, 3, 1, 2, 3)),
                ("general.alignment", 4, struct.pack("<I", 32)),
                ("general.file_type", 4, struct.pack("<I", int(gguf.LlamaFileType.MOSTLY_Q8_0))),
            ]
        )
    )
    assert gguf_quantisation(path) == _reader_file_type(path) == "Q8_0"
    path.write_bytes(_gguf_bytes([("general.name", 8, struct.pack("<Q", 1) + b"x")]))
    assert gguf_quantisation(path) is None
