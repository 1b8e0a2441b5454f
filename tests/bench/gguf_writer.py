#!/usr/bin/python3
"""A streamed GGUF writer for the benchmark files: the header (metadata and tensor infos) first,
then each tensor's data produced and written one at a time, so a 5 GB file never sits in memory
(at most one tensor, or one chunk of it, does).

The bytes are those of tests/core/formats/gguf_writer.py (the tests' writer, from the format's
public specification; its value encoding is reused here): version 3, alignment 32, every
tensor's data padded to the alignment. A tensor is added with its GGUF dims, its GGML type and a
producer: a function called at write time, in the order the tensors were added, that returns the
data as bytes or as an iterable of byte chunks; their total length must be the size the dims and
type give.

    w = StreamedGGUFWriter()
    w.add_string("general.architecture", "llama")
    w.add_tensor("output_norm.weight", [4096], "F32", lambda: numpy_array.tobytes())
    size = w.write(path)
"""
import importlib.util
import os
import struct

# The tests' writer has this module's name: load it by its path.
_spec = importlib.util.spec_from_file_location(
    "formats_gguf_writer",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core", "formats", "gguf_writer.py"))
_formats = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_formats)
ARRAY, BOOL, FLOAT32, INT32, STRING, UINT32 = (_formats.ARRAY, _formats.BOOL, _formats.FLOAT32, _formats.INT32,
                                               _formats.STRING, _formats.UINT32)
GGML_TYPES, Array, string_bytes, value_bytes = (_formats.GGML_TYPES, _formats.Array, _formats.string_bytes,
                                                _formats.value_bytes)


def tensor_bytes(dims, type_name):
    """Bytes of a tensor of GGUF dims (ne[0] first) in GGML type `type_name`."""
    _, per_block, block_bytes = GGML_TYPES[type_name]
    n = 1
    for d in dims:
        n *= d
    assert dims[0] % per_block == 0, "rows of %d values are not whole %d-value blocks" % (dims[0], per_block)
    return n // per_block * block_bytes


class StreamedGGUFWriter:
    def __init__(self, alignment=32):
        self.alignment = alignment
        self.kv = []       # (key, type, value)
        self.tensors = []  # (name, dims, type name, bytes, producer)

    def add(self, key, vtype, value):
        self.kv.append((key, vtype, value))

    def add_string(self, key, value):
        self.add(key, STRING, value)

    def add_uint32(self, key, value):
        self.add(key, UINT32, value)

    def add_array(self, key, element_type, values):
        self.add(key, ARRAY, Array(element_type, values))

    def add_tensor(self, name, dims, type_name, producer):
        """dims in GGUF order (ne[0]: the values of one row); producer() -> bytes or byte chunks."""
        self.tensors.append((name, list(dims), type_name, tensor_bytes(dims, type_name), producer))

    def _pad(self, n):
        return (self.alignment - n % self.alignment) % self.alignment

    def header(self):
        out = bytearray(b"GGUF")
        out += struct.pack("<IQQ", 3, len(self.tensors), len(self.kv))
        for key, vtype, value in self.kv:
            out += string_bytes(key) + struct.pack("<I", vtype) + value_bytes(vtype, value)
        offset = 0
        for name, dims, type_name, size, _ in self.tensors:
            out += string_bytes(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
            out += struct.pack("<IQ", GGML_TYPES[type_name][0], offset)
            offset += size + self._pad(size)
        return bytes(out) + b"\0" * self._pad(len(out))

    def write(self, path):
        """Writes the file (through path + ".part", renamed when complete); returns its size in bytes."""
        tmp = path + ".part"
        try:
            with open(tmp, "wb") as f:
                f.write(self.header())
                for name, _, _, size, producer in self.tensors:
                    data = producer()
                    written = 0
                    for chunk in ([data] if isinstance(data, (bytes, bytearray, memoryview)) else data):
                        f.write(chunk)
                        written += len(chunk)
                    if written != size:
                        raise ValueError("%s: the producer gave %d bytes; its dims and type make %d" % (name, written, size))
                    f.write(b"\0" * self._pad(size))
                total = f.tell()
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        os.replace(tmp, path)
        return total
