#!/usr/bin/python3
"""An independent numpy dequantizer for the GGML block types headscope reads (the oracle of the
GGUF tests), written from the block layouts of ggml-common.h, one value index at a time rather
than loop by loop. Every arithmetic step is float32, in the order GGML evaluates it, so results
must equal headscope's bit for bit.

Block layouts (bytes, little-endian; "half" = IEEE binary16; a block of B values, value v):
  Q4_0 (32, 18):  d half | 16 q bytes.     q = nibble (v // 16) of byte v % 16.   x = (q - 8) d
  Q4_1 (32, 20):  d, m | 16 q bytes.       same q.                              x = q d + m
  Q5_0 (32, 22):  d | uint32 qh | 16 bytes. q = nibble | bit v of qh << 4.      x = (q - 16) d
  Q5_1 (32, 24):  d, m | qh | 16 bytes.                                          x = q d + m
  Q8_0 (32, 34):  d | 32 int8.                                                   x = q d
  Q2_K (256, 84): 16 scale bytes | 64 q bytes | d | dmin. Value v = 128 h + 32 j + r (r < 32):
                  q = bits 2j..2j+1 of byte 32 h + r; scale byte v // 16 holds sc (low 4
                  bits) and m (high 4 bits).                                     x = (d sc) q - (dmin m)
  Q3_K (256, 110): 32 hmask bytes | 64 q bytes | 12 scale bytes | d. Same 2-bit q; the high bit
                  is bit v // 32 of hmask byte v % 32 (set: +0, clear: -4); 6-bit scale
                  k = v // 16: low 4 bits = nibble (k // 8) of byte k % 8, top 2 bits = bits
                  2 (k // 4) of byte 8 + k % 4; minus 32.                        x = (d sc) (q - 4 [bit clear])
  Q4_K (256, 144): d | dmin | 12 bytes of 8 6-bit (sc, m) | 128 q bytes. Value v = 64 j + 32 t + r:
                  q = nibble t of byte 32 j + r; pair k = v // 32: k < 4: sc = byte k & 63,
                  m = byte k+4 & 63; else sc = (byte k+4 & 15) | (byte k-4 >> 6) << 4,
                  m = (byte k+4 >> 4) | (byte k >> 6) << 4.                      x = (d sc) q - (dmin m)
  Q5_K (256, 176): d | dmin | 12 scale bytes | 32 qh bytes | 128 q bytes. q as Q4_K plus 16 times
                  bit v // 32 of qh byte r.
  Q6_K (256, 210): 128 low bytes | 64 high bytes | 16 int8 scales | d. Value v = 128 h + 32 p + r:
                  low = nibble (p // 2) of low byte 64 h + 32 (p % 2) + r; high = bits 2p of
                  high byte 32 h + r; q = low | high << 4, minus 32; scale v // 16.  x = (d sc) q
  F32, F16 (IEEE half), BF16 (the top 16 bits of a float32).

usage as a module: dequantize(type_name, raw_bytes, n_values) -> float32 array;
random_blocks(type_name, n_blocks, rng) -> bytes (random quantized parts, finite half scales).
"""
import numpy as np

# name -> (values per block, bytes per block)
LAYOUTS = {"F32": (1, 4), "F16": (1, 2), "BF16": (1, 2), "Q4_0": (32, 18), "Q4_1": (32, 20), "Q5_0": (32, 22),
           "Q5_1": (32, 24), "Q8_0": (32, 34), "Q2_K": (256, 84), "Q3_K": (256, 110), "Q4_K": (256, 144),
           "Q5_K": (256, 176), "Q6_K": (256, 210)}

# Where each block keeps its half-precision scales (byte offsets), for random_blocks.
HALF_FIELDS = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0], "Q2_K": [80, 82],
               "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208]}

F32 = np.float32


def _half(blocks, at):
    """[n] float32 from the half at byte `at` of each block."""
    return np.ascontiguousarray(blocks[:, at:at + 2]).view("<f2").reshape(-1).astype(F32)


def _u32(blocks, at):
    return np.ascontiguousarray(blocks[:, at:at + 4]).view("<u4").reshape(-1)


def _nibble(byte, which):
    return (byte >> (4 * which)) & 15


def _q4_0(b):
    v = np.arange(32)
    q = _nibble(b[:, 2 + v % 16], v // 16).astype(np.int32)
    return (q - 8).astype(F32) * _half(b, 0)[:, None]


def _q4_1(b):
    v = np.arange(32)
    q = _nibble(b[:, 4 + v % 16], v // 16).astype(F32)
    return q * _half(b, 0)[:, None] + _half(b, 2)[:, None]


def _q5(b, qh_at, qs_at):
    v = np.arange(32)
    high = (_u32(b, qh_at)[:, None] >> v.astype(np.uint32)) & 1
    return _nibble(b[:, qs_at + v % 16], v // 16).astype(np.int32) | (high.astype(np.int32) << 4)


def _q5_0(b):
    return (_q5(b, 2, 6) - 16).astype(F32) * _half(b, 0)[:, None]


def _q5_1(b):
    return _q5(b, 4, 8).astype(F32) * _half(b, 0)[:, None] + _half(b, 2)[:, None]


def _q8_0(b):
    return b[:, 2:34].view(np.int8).astype(F32) * _half(b, 0)[:, None]


def _q2_k(b):
    v = np.arange(256)
    h, j, r = v // 128, (v % 128) // 32, v % 32
    q = (b[:, 16 + 32 * h + r] >> (2 * j)) & 3
    scale_byte = b[:, v // 16]
    dl = _half(b, 80)[:, None] * (scale_byte & 15).astype(F32)
    ml = _half(b, 82)[:, None] * (scale_byte >> 4).astype(F32)
    return dl * q.astype(F32) - ml


def _q3_k(b):
    v = np.arange(256)
    h, j, r = v // 128, (v % 128) // 32, v % 32
    q = ((b[:, 32 + 32 * h + r] >> (2 * j)) & 3).astype(np.int32)
    bit_set = (b[:, r] >> (v // 32)) & 1
    q = q - 4 * (1 - bit_set.astype(np.int32))
    k = np.arange(16)
    low = _nibble(b[:, 96 + k % 8], k // 8).astype(np.int32)
    top = ((b[:, 104 + k % 4] >> (2 * (k // 4))) & 3).astype(np.int32)
    scales = (low | (top << 4)) - 32                      # [n, 16]
    dl = _half(b, 108)[:, None] * scales[:, v // 16].astype(F32)
    return dl * q.astype(F32)


def _scale_min_k4(s):
    """s: [n, 12] bytes -> (sc, m) each [n, 8] int32."""
    s = s.astype(np.int32)
    sc = np.empty((s.shape[0], 8), np.int32)
    m = np.empty((s.shape[0], 8), np.int32)
    for k in range(8):
        if k < 4:
            sc[:, k] = s[:, k] & 63
            m[:, k] = s[:, k + 4] & 63
        else:
            sc[:, k] = (s[:, k + 4] & 15) | ((s[:, k - 4] >> 6) << 4)
            m[:, k] = (s[:, k + 4] >> 4) | ((s[:, k] >> 6) << 4)
    return sc, m


def _k_scaled(b, q):
    v = np.arange(256)
    sc, m = _scale_min_k4(b[:, 4:16])
    d1 = _half(b, 0)[:, None] * sc[:, v // 32].astype(F32)
    m1 = _half(b, 2)[:, None] * m[:, v // 32].astype(F32)
    return d1 * q.astype(F32) - m1


def _q4_k(b):
    v = np.arange(256)
    j, t, r = v // 64, (v % 64) // 32, v % 32
    return _k_scaled(b, _nibble(b[:, 16 + 32 * j + r], t))


def _q5_k(b):
    v = np.arange(256)
    j, t, r = v // 64, (v % 64) // 32, v % 32
    high = (b[:, 16 + r] >> (v // 32)) & 1
    q = _nibble(b[:, 48 + 32 * j + r], t).astype(np.int32) + 16 * high.astype(np.int32)
    return _k_scaled(b, q)


def _q6_k(b):
    v = np.arange(256)
    h, p, r = v // 128, (v % 128) // 32, v % 32
    low = _nibble(b[:, 64 * h + 32 * (p % 2) + r], p // 2).astype(np.int32)
    high = ((b[:, 128 + 32 * h + r] >> (2 * p)) & 3).astype(np.int32)
    q = (low | (high << 4)) - 32
    scales = b[:, 192:208].view(np.int8).astype(F32)
    return (_half(b, 208)[:, None] * scales[:, v // 16]) * q.astype(F32)


_BLOCK_FUNCTIONS = {"Q4_0": _q4_0, "Q4_1": _q4_1, "Q5_0": _q5_0, "Q5_1": _q5_1, "Q8_0": _q8_0, "Q2_K": _q2_k,
                    "Q3_K": _q3_k, "Q4_K": _q4_k, "Q5_K": _q5_k, "Q6_K": _q6_k}


def dequantize(type_name, raw, n):
    """n values of `type_name` stored in the bytes `raw` -> float32 [n]."""
    raw = np.frombuffer(bytes(raw), dtype=np.uint8)
    if type_name == "F32":
        return raw[:4 * n].view("<f4").astype(F32)
    if type_name == "F16":
        return raw[:2 * n].view("<f2").astype(F32)
    if type_name == "BF16":
        return (raw[:2 * n].view("<u2").astype(np.uint32) << 16).view(F32)
    block, size = LAYOUTS[type_name]
    assert n % block == 0
    blocks = raw[:n // block * size].reshape(-1, size)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _BLOCK_FUNCTIONS[type_name](blocks)
    assert out.dtype == F32, type_name
    return out.reshape(-1)


def random_halves(rng, n, allow_inf=False):
    """n finite IEEE halves (any sign; normal and subnormal), as uint16 bit patterns."""
    sign = rng.integers(0, 2, n, dtype=np.uint16) << 15
    exponent = rng.integers(0, 31 if not allow_inf else 32, n, dtype=np.uint16)
    mantissa = rng.integers(0, 1024, n, dtype=np.uint16)
    mantissa = np.where(exponent == 31, 0, mantissa).astype(np.uint16)  # 31: infinity only
    return (sign | (exponent << 10) | mantissa).astype("<u2")


def random_blocks(type_name, n_blocks, rng, specials=False):
    """Random quantized data: random bytes everywhere, finite half scales in the scale fields.
    F16 and BF16 values are finite, or with `specials` any pattern (F16: infinities too; BF16:
    infinities and NaNs)."""
    block, size = LAYOUTS[type_name]
    if type_name == "F32":
        vals = rng.standard_normal(n_blocks).astype("<f4") * np.float32(3)
        return vals.tobytes()
    if type_name == "F16":
        return random_halves(rng, n_blocks, allow_inf=specials).tobytes()
    if type_name == "BF16":
        if specials:
            return rng.integers(0, 1 << 16, n_blocks, dtype=np.uint16).astype("<u2").tobytes()
        vals = rng.standard_normal(n_blocks).astype("<f4")
        return (vals.view(np.uint32) >> 16).astype("<u2").tobytes()
    blocks = rng.integers(0, 256, (n_blocks, size), dtype=np.uint8)
    for at in HALF_FIELDS[type_name]:
        blocks[:, at:at + 2] = random_halves(rng, n_blocks).view(np.uint8).reshape(n_blocks, 2)
    return blocks.tobytes()
