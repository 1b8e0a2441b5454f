#!/usr/bin/python3
"""A small GGUF writer for the tests, written from the format's public specification
(llama.cpp's ggml/docs/gguf.md), not from headscope's reader. Little-endian throughout:

    magic "GGUF" | uint32 version | uint64 tensor_count | uint64 metadata_kv_count
    metadata: key (uint64 length + UTF-8 bytes) | uint32 value type | value
        value types: 0 uint8, 1 int8, 2 uint16, 3 int16, 4 uint32, 5 int32, 6 float32, 7 bool,
        8 string (uint64 length + bytes), 9 array (uint32 element type, uint64 count, elements),
        10 uint64, 11 int64, 12 float64
    tensor infos: name | uint32 n_dims | uint64 ne[n_dims] (ne[0] = values per row) |
        uint32 ggml type | uint64 offset (from the data section, a multiple of the alignment)
    padding to `general.alignment` (default 32), then the data section.

The writer records where each field landed (`layout`), so tests can corrupt one field at a time.
"""
import struct

import numpy as np

UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
_SCALAR_FORMAT = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i", FLOAT32: "<f",
                  BOOL: "<B", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}

# GGML tensor types: name -> (id, values per block, bytes per block), as gguf-py's GGML_QUANT_SIZES.
GGML_TYPES = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20), "Q5_0": (6, 32, 22),
    "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q8_1": (9, 32, 40), "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110),
    "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "Q8_K": (15, 256, 292),
    "IQ2_XXS": (16, 256, 66), "IQ2_XS": (17, 256, 74), "IQ3_XXS": (18, 256, 98), "IQ1_S": (19, 256, 50),
    "IQ4_NL": (20, 32, 18), "IQ3_S": (21, 256, 110), "IQ2_S": (22, 256, 82), "IQ4_XS": (23, 256, 136),
    "I8": (24, 1, 1), "I16": (25, 1, 2), "I32": (26, 1, 4), "I64": (27, 1, 8), "F64": (28, 1, 8),
    "IQ1_M": (29, 256, 56), "BF16": (30, 1, 2), "TQ1_0": (34, 256, 54), "TQ2_0": (35, 256, 66),
    "MXFP4": (39, 32, 17),
}


class Array:
    """An array value: element type and elements (nested arrays are Array objects)."""

    def __init__(self, element_type, values):
        self.element_type = element_type
        self.values = list(values)


def string_bytes(s):
    b = s if isinstance(s, (bytes, bytearray)) else s.encode("utf-8")
    return struct.pack("<Q", len(b)) + bytes(b)


def value_bytes(vtype, value):
    if vtype == STRING:
        return string_bytes(value)
    if vtype == ARRAY:
        assert isinstance(value, Array)
        out = struct.pack("<IQ", value.element_type, len(value.values))
        return out + b"".join(value_bytes(value.element_type, v) for v in value.values)
    if vtype == BOOL:
        return struct.pack("<B", 1 if value else 0)
    return struct.pack(_SCALAR_FORMAT[vtype], value)


class GGUFWriter:
    def __init__(self, version=3, alignment=32, alignment_key=None):
        """alignment_key: write general.alignment (default: only when alignment is not 32)."""
        self.version = version
        self.alignment = alignment
        self.kv = []        # (key, type, value)
        self.tensors = []   # (name, dims in ne order, type id, data bytes)
        self.layout = {}
        if alignment_key if alignment_key is not None else alignment != 32:
            self.add("general.alignment", UINT32, alignment)

    def add(self, key, vtype, value):
        self.kv.append((key, vtype, value))

    def add_string(self, key, value):
        self.add(key, STRING, value)

    def add_uint32(self, key, value):
        self.add(key, UINT32, value)

    def add_bool(self, key, value):
        self.add(key, BOOL, value)

    def add_array(self, key, element_type, values):
        self.add(key, ARRAY, Array(element_type, values))

    def add_tensor(self, name, dims, type_name, data):
        """dims in GGUF order (ne[0] first, the values of one row); data: the raw bytes."""
        type_id = GGML_TYPES[type_name][0] if isinstance(type_name, str) else int(type_name)
        self.tensors.append((name, list(dims), type_id, bytes(data)))

    def add_f32(self, name, array):
        """A float32 numpy array [rows, cols] (C order) stored as ne = [cols, rows]."""
        a = np.ascontiguousarray(array, dtype="<f4")
        self.add_tensor(name, list(reversed(a.shape)), "F32", a.tobytes())

    def to_bytes(self):
        def pad(n):
            return (self.alignment - n % self.alignment) % self.alignment

        out = bytearray(b"GGUF")
        self.layout = {"version": len(out)}
        out += struct.pack("<I", self.version)
        self.layout["tensor_count"] = len(out)
        out += struct.pack("<Q", len(self.tensors))
        self.layout["kv_count"] = len(out)
        out += struct.pack("<Q", len(self.kv))
        self.layout["kv"] = []
        for key, vtype, value in self.kv:
            entry = {"key": key, "at": len(out)}
            out += string_bytes(key)
            entry["type_at"] = len(out)
            out += struct.pack("<I", vtype)
            entry["value_at"] = len(out)
            out += value_bytes(vtype, value)
            self.layout["kv"].append(entry)
        offsets, offset = [], 0
        for _, _, _, data in self.tensors:
            offsets.append(offset)
            offset += len(data) + pad(len(data))
        self.layout["tensors"] = []
        for (name, dims, type_id, _), off in zip(self.tensors, offsets):
            entry = {"name": name, "at": len(out)}
            out += string_bytes(name)
            entry["n_dims_at"] = len(out)
            out += struct.pack("<I", len(dims))
            entry["dims_at"] = len(out)
            out += b"".join(struct.pack("<Q", d) for d in dims)
            entry["type_at"] = len(out)
            out += struct.pack("<I", type_id)
            entry["offset_at"] = len(out)
            out += struct.pack("<Q", off)
            self.layout["tensors"].append(entry)
        out += b"\0" * pad(len(out))
        self.layout["data"] = len(out)
        for (_, _, _, data) in self.tensors:
            out += data + b"\0" * pad(len(data))
        return bytes(out)

    def write(self, path):
        data = self.to_bytes()
        with open(path, "wb") as f:
            f.write(data)
        return data
