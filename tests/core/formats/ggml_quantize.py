#!/usr/bin/python3
"""Simple GGML quantizers for the tests: float32 rows -> the bytes of a GGUF tensor of a given type,
laid out as ggml_dequant.py (the oracle) reads them. Round-to-nearest with per-block scales from
each block's range: not llama.cpp's error-minimising search, but valid encodings of the same
formats, so a file made from a model's float weights holds a quantized model that headscope must
run exactly as its dequantized weights (ggml_dequant.dequantize) say.

  F32, F16, BF16 (round to nearest even), Q8_0 (d = max|x| / 127), Q4_0 (d = max|x| / 7),
  Q4_K (per 32 values: scale = (max - min) / 15, min = -min(x, 0), both as 6-bit multiples of a
  half d / dmin per 256), Q6_K (per 16 values: an int8 multiple of a half d of max|x| / 31).

usage: quantize(type_name, rows) with rows float32 [n, k] (k a multiple of the block size) -> bytes.
"""
import numpy as np

F32 = np.float32
BLOCK = {"F32": 1, "F16": 1, "BF16": 1, "Q8_0": 32, "Q4_0": 32, "Q4_K": 256, "Q6_K": 256}


def _half_bits(x):
    """float32 [n] -> (uint8 [n, 2] little-endian half bits, the half's value as float32)."""
    h = np.asarray(x, dtype=F32).astype("<f2")
    return h.view(np.uint8).reshape(-1, 2), h.astype(F32)


def _safe_inverse(d):
    return np.where(d == 0, F32(0), F32(1) / np.where(d == 0, F32(1), d)).astype(F32)


def _round(x):
    """Round half away from zero, as roundf."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _bf16(a):
    bits = a.astype("<f4").view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
    return rounded.astype("<u2").tobytes()


def _q8_0(x):
    b = x.reshape(-1, 32)
    bits, d = _half_bits(np.abs(b).max(axis=1) / F32(127))
    q = np.clip(_round(b * _safe_inverse(d)[:, None]), -127, 127).astype(np.int8)
    out = np.empty((b.shape[0], 34), np.uint8)
    out[:, 0:2] = bits
    out[:, 2:] = q.view(np.uint8)
    return out.tobytes()


def _q4_0(x):
    b = x.reshape(-1, 32)
    bits, d = _half_bits(np.abs(b).max(axis=1) / F32(7))
    q = (np.clip(_round(b * _safe_inverse(d)[:, None]), -8, 7) + 8).astype(np.uint8)  # value v: nibble v // 16 of byte v % 16
    out = np.empty((b.shape[0], 18), np.uint8)
    out[:, 0:2] = bits
    out[:, 2:] = q[:, :16] | (q[:, 16:] << 4)
    return out.tobytes()


def _q4_k(x):
    b = x.reshape(-1, 8, 32)                      # [blocks, sub-block k, value]
    lo = np.minimum(b.min(axis=2), 0)             # [n, 8]
    scale = (b.max(axis=2) - lo) / F32(15)
    mn = -lo
    d_bits, d = _half_bits(scale.max(axis=1) / F32(63))
    m_bits, dmin = _half_bits(mn.max(axis=1) / F32(63))
    sc = np.clip(_round(scale * _safe_inverse(d)[:, None]), 0, 63).astype(np.int32)
    m = np.clip(_round(mn * _safe_inverse(dmin)[:, None]), 0, 63).astype(np.int32)
    step = (d[:, None] * sc.astype(F32)).astype(F32)     # x = step q - dmin m
    offset = (dmin[:, None] * m.astype(F32)).astype(F32)
    q = np.clip(_round((b + offset[:, :, None]) * _safe_inverse(step)[:, :, None]), 0, 15).astype(np.uint8)
    n = b.shape[0]
    out = np.zeros((n, 144), np.uint8)
    out[:, 0:2], out[:, 2:4] = d_bits, m_bits
    for k in range(4):
        out[:, 4 + k] = (sc[:, k] & 63) | ((sc[:, k + 4] >> 4) << 6)
        out[:, 8 + k] = (m[:, k] & 63) | ((m[:, k + 4] >> 4) << 6)
        out[:, 12 + k] = (sc[:, k + 4] & 15) | ((m[:, k + 4] & 15) << 4)
    q = q.reshape(n, 256)
    for j in range(4):  # byte 32 j + r: value 64 j + r (low nibble), 64 j + 32 + r (high nibble)
        out[:, 16 + 32 * j:16 + 32 * j + 32] = q[:, 64 * j:64 * j + 32] | (q[:, 64 * j + 32:64 * j + 64] << 4)
    return out.tobytes()


def _q6_k(x):
    b = x.reshape(-1, 16, 16)                     # [blocks, group, value]
    group = np.abs(b).max(axis=2) / F32(31)       # [n, 16]
    d_bits, d = _half_bits(group.max(axis=1) / F32(127))
    sc = np.clip(_round(group * _safe_inverse(d)[:, None]), -128, 127).astype(np.int8)
    step = (d[:, None] * sc.astype(F32)).astype(F32)
    q = (np.clip(_round(b * _safe_inverse(step)[:, :, None]), -32, 31) + 32).astype(np.uint8).reshape(-1, 256)
    n = b.shape[0]
    out = np.zeros((n, 210), np.uint8)
    for h in range(2):
        for p in range(4):  # value 128 h + 32 p + r
            vals = q[:, 128 * h + 32 * p:128 * h + 32 * p + 32]
            low_at = 64 * h + 32 * (p % 2)
            out[:, low_at:low_at + 32] |= (vals & 15) << (4 * (p // 2))
            out[:, 128 + 32 * h:160 + 32 * h] |= (vals >> 4) << (2 * p)
    out[:, 192:208] = sc.view(np.uint8)
    out[:, 208:210] = d_bits
    return out.tobytes()


def quantize(type_name, rows):
    """rows: float32 [n, k] (or [k]) -> the tensor's bytes in `type_name`."""
    a = np.ascontiguousarray(rows, dtype=F32)
    if a.shape[-1] % BLOCK[type_name] != 0:
        raise ValueError("%s needs rows of a multiple of %d values, not %d" % (type_name, BLOCK[type_name], a.shape[-1]))
    flat = a.reshape(-1)
    if type_name == "F32":
        return flat.astype("<f4").tobytes()
    if type_name == "F16":
        return flat.astype("<f2").tobytes()
    if type_name == "BF16":
        return _bf16(flat)
    return {"Q8_0": _q8_0, "Q4_0": _q4_0, "Q4_K": _q4_k, "Q6_K": _q6_k}[type_name](flat)
