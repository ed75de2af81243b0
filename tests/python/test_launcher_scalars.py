"""Scalar conversion parity with Triton-XPU's own launcher, through the
Python launcher module and the Level Zero test driver: for every type code
and edge value, the bytes the kernel receives (or the exception) are what
Triton-XPU's extractors and torch's static-launcher helpers give.

The oracles are independent of the launcher: ``struct.pack('<e')`` is
CPython's PyFloat_Pack2 (what extractFP16 and unpackTritonFp16 call),
``ctypes.c_float`` is the C cast ``(float)x`` (extractFP32, and bf16 keeps its
top 16 bits), and integer codes are read as the C type Triton reads them with
(C ``long`` for b/h/i, ``unsigned long`` for B/H/I, 64 bits for l/K) and
then cast with ctypes' wrapping integer types."""

from __future__ import annotations

import ctypes
import math
import struct
from typing import Any

import pytest

import launcher_support as support

pytestmark = support.launcher_tests()

if support.missing_prerequisites() is None:
    from xpu_static_launcher._launcher import StaticXpuLauncher as L

    from xpu_static_launcher import _zebin, launcher

LONG_BITS = 8 * ctypes.sizeof(ctypes.c_long)

# code -> (ctypes type of the cast, C range Triton reads the value with)
INT_CODES: dict[str, tuple[Any, int, int]] = {
    "b": (ctypes.c_int8, -(2 ** (LONG_BITS - 1)), 2 ** (LONG_BITS - 1) - 1),
    "h": (ctypes.c_int16, -(2 ** (LONG_BITS - 1)), 2 ** (LONG_BITS - 1) - 1),
    "i": (ctypes.c_int32, -(2 ** (LONG_BITS - 1)), 2 ** (LONG_BITS - 1) - 1),
    "l": (ctypes.c_int64, -(2**63), 2**63 - 1),
    "B": (ctypes.c_uint8, 0, 2**LONG_BITS - 1),
    "H": (ctypes.c_uint16, 0, 2**LONG_BITS - 1),
    "I": (ctypes.c_uint32, 0, 2**LONG_BITS - 1),
    "K": (ctypes.c_uint64, 0, 2**64 - 1),
}

INT_EDGES = (
    0,
    1,
    -1,
    True,
    False,
    127,
    128,
    -128,
    -129,
    200,
    255,
    256,
    -256,
    32767,
    32768,
    -32768,
    -32769,
    65535,
    65536,
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**32 - 1,
    2**32,
    2**32 + 5,
    2**40,
    -(2**40),
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64 - 1,
    2**64,
    -(2**64),
    2**100,
    -(2**100),
)


def _double(bits: int) -> float:
    return struct.unpack("<d", bits.to_bytes(8, "little"))[0]


FLOAT_EDGES = (
    0.0,
    -0.0,
    0.1,
    -0.1,
    1 / 3,
    3.140625,
    1.01171875,
    1.5,
    65504.0,
    65519.99,
    65520.0,
    -65520.0,
    1e5,
    3.4028234663852886e38,
    3.5e38,
    1e300,
    -1e300,
    math.inf,
    -math.inf,
    math.nan,
    -math.nan,
    _double(0x7FF4000000000001),
    _double(0xFFF8000000000123),
    5e-324,
    2.0**-24,
    2.0**-25,
    2.0**-26,
    2.0**-133,
    2.0**-149,
    2.0**-150,
    3,
    -7,
    True,
    2**70,
    2**1100,
)

# The `scalars` kernel (launcher_support.LAUNCHER_KERNELS_SOURCE): an out
# pointer, then char short int long uchar ushort uint ulong float double
# half, in that order; char/short/half arrive in 4-byte payloads.
SCALAR_CODES = "bhilBHIKfde"
PAYLOAD_SIZES = (4, 4, 4, 8, 4, 4, 4, 8, 4, 8, 4)
HALF_POSITION = 10

Outcome = bytes | type


def expected_int(code: str, value: int, payload: int) -> Outcome:
    c_type, low, high = INT_CODES[code]
    if not low <= value <= high:
        return OverflowError
    cast = c_type(value).value  # ctypes wraps like the C cast
    return cast.to_bytes(payload, "little", signed=cast < 0)


def _float_bits(value: float) -> bytes:
    return bytes(ctypes.c_float(value))  # (float)x, NaN payload kept


def expected_float(code: str, value: float, payload: int) -> Outcome:
    if isinstance(value, int) and abs(value) > 2**1023:
        return OverflowError  # PyFloat_AsDouble
    value = float(value)
    if code == "d":
        data = struct.pack("<d", value)
    elif code == "f":
        data = _float_bits(value)
    elif code == "y":
        data = _float_bits(value)[2:4]
    else:
        try:
            data = struct.pack("<e", value)
        except OverflowError:
            return OverflowError
    return data + bytes(payload - len(data))


@pytest.fixture(scope="module")
def scalars(kernels_zebin):
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    out = launcher.device_alloc(0, 64)
    yield function, out
    launcher.device_free(out)


def launch_one(scalars, records, codes: str, position: int, value: Any) -> bytes:
    """Launches `scalars` with `value` at scalar `position` (defaults
    elsewhere) and returns the bytes the driver received for it."""
    function, out = scalars
    _, values = support.scalar_codes_and_values()
    args = values[:position] + (value,) + values[position + 1 :]
    records.clear()
    L._launch_kernel(function, 1, 1, 1, 1, 0, "O" + codes, (out,) + args, 0)
    assert records.count() == 1
    # Kernel argument 0 is the pointer, so scalar i is argument i + 1.
    return records.launch(0)["args"][position + 1]["bytes"]


def check_outcome(scalars, records, codes: str, position: int, value: Any, expected: Outcome) -> None:
    """The launch gives `expected`: the argument's bytes, or OverflowError
    naming the argument and its code."""
    code = codes[position]
    if expected is OverflowError:
        with pytest.raises(OverflowError, match=rf"argument {position + 1} \('{code}'"):
            launch_one(scalars, records, codes, position, value)
    else:
        got = launch_one(scalars, records, codes, position, value)
        assert got == expected, (code, value, got.hex(), expected.hex())


def test_the_kernel_declares_the_types_the_table_assumes(kernels_zebin):
    with open(kernels_zebin, "rb") as f:
        kernels = {k["name"]: k for k in _zebin.read_zebin(f.read())["kernels"]}
    type_names = [arg["type_name"] for arg in kernels["scalars"]["args"][1:]]
    assert type_names == [
        "char;1",
        "short;2",
        "int;4",
        "long;8",
        "uchar;1",
        "ushort;2",
        "uint;4",
        "ulong;8",
        "float;4",
        "double;8",
        "half;2",
    ]


@pytest.mark.parametrize("code", list(INT_CODES))
def test_integer_codes_match_triton(scalars, records, code):
    position = SCALAR_CODES.index(code)
    payload = PAYLOAD_SIZES[position]
    for value in INT_EDGES:
        check_outcome(scalars, records, SCALAR_CODES, position, value, expected_int(code, value, payload))


def test_integer_wrap_examples(scalars, records):
    # Hand-checked anchors for the oracle: the C cast wraps.
    assert launch_one(scalars, records, SCALAR_CODES, 0, 200) == bytes([0xC8, 0xFF, 0xFF, 0xFF])
    assert launch_one(scalars, records, SCALAR_CODES, 4, 256) == bytes(4)
    with pytest.raises(OverflowError, match=r"argument 5 \('B', uint8\): -1 is outside"):
        launch_one(scalars, records, SCALAR_CODES, 4, -1)
    with pytest.raises(OverflowError, match=r"argument 4 \('l', int64\): 9223372036854775808"):
        launch_one(scalars, records, SCALAR_CODES, 3, 2**63)
    if LONG_BITS == 64:
        assert launch_one(scalars, records, SCALAR_CODES, 2, 2**32 + 5) == (5).to_bytes(4, "little")


@pytest.mark.parametrize("code", ["f", "d", "e", "y"])
def test_float_codes_match_triton(scalars, records, code):
    position = HALF_POSITION if code in "ey" else SCALAR_CODES.index(code)
    codes = SCALAR_CODES[:HALF_POSITION] + ("y" if code == "y" else "e")
    payload = PAYLOAD_SIZES[position]
    for value in FLOAT_EDGES:
        check_outcome(scalars, records, codes, position, value, expected_float(code, value, payload))


@pytest.mark.parametrize("value, type_name", [(None, "NoneType"), ("1.5", "str"), (b"1", "bytes")])
def test_a_float_parameter_refuses_what_is_not_a_number(scalars, records, value, type_name):
    # One message for every kind of scalar: the int parameters' is the same.
    position = SCALAR_CODES.index("f")
    with pytest.raises(
        TypeError, match=rf"argument {position + 1} \('f', float32\): expected a float, got {type_name}$"
    ):
        launch_one(scalars, records, SCALAR_CODES, position, value)


def test_bf16_truncates_and_fp16_rounds(scalars, records):
    codes_bf16 = SCALAR_CODES[:HALF_POSITION] + "y"
    assert launch_one(scalars, records, codes_bf16, HALF_POSITION, 0.1)[:2] == (0x3DCC).to_bytes(2, "little")
    assert launch_one(scalars, records, codes_bf16, HALF_POSITION, 3.140625)[:2] == (0x4049).to_bytes(2, "little")
    assert launch_one(scalars, records, SCALAR_CODES, HALF_POSITION, 3.140625)[:2] == (0x4248).to_bytes(2, "little")
    with pytest.raises(OverflowError, match=r"argument 11 \('e', float16\): 65520 is too large"):
        launch_one(scalars, records, SCALAR_CODES, HALF_POSITION, 65520.0)


def test_f_on_a_half_parameter_is_refused(scalars, records):
    # torch 2.13 sends 'f' for fp16, bf16 and fp32; the zebin says 'half;2'
    # for both fp16 and bf16 parameters, so the bits cannot be chosen.
    codes = SCALAR_CODES[:HALF_POSITION] + "f"
    with pytest.raises(ValueError) as error:
        launch_one(scalars, records, codes, HALF_POSITION, 3.140625)
    message = str(error.value)
    assert "argument 11 ('f', float32)" in message
    assert "'half;2'" in message
    assert "'e' (float16) or 'y' (bfloat16)" in message
    assert records.count() == 0
    # The kernel launches normally afterwards.
    assert launch_one(scalars, records, SCALAR_CODES, HALF_POSITION, 1.0)[:2] == b"\x00\x3c"


@pytest.fixture(scope="module")
def bool_kernel():
    """A kernel whose parameter 1 is declared 'bool;1', as Triton's i1 is:
    OpenCL C cannot declare a bool kernel parameter, so a char parameter's
    type name is rewritten (same length, offsets unchanged)."""
    source = r"""
    __kernel void flag(__global int* out, char b, int n) { out[0] = b + n; }
    """
    data = support.compile_opencl(source).read_bytes()
    assert data.count(b"'char;1'") == 1
    path = support.compile_opencl(source).with_name("flag_bool.zebin")
    path.write_bytes(data.replace(b"'char;1'", b"'bool;1'"))
    function, _, _ = L._load_kernel(str(path), "flag", 0, 0)
    out = launcher.device_alloc(0, 64)
    yield function, out
    launcher.device_free(out)


@pytest.mark.parametrize("value, expected", [(0, 0), (1, 1), (False, 0), (True, 1)])
def test_bool_parameter_takes_zero_and_one(bool_kernel, records, value, expected):
    function, out = bool_kernel
    records.clear()
    L._launch_kernel(function, 1, 1, 1, 1, 0, "Oii", (out, value, 7), 0)
    arg = records.launch(0)["args"][1]
    assert arg["bytes"] == expected.to_bytes(arg["size"], "little")


# 2**32 + 1 would wrap to 1 as an int32 (where C long has 64 bits).
@pytest.mark.parametrize("value", [2, -1, 255, 256] + ([2**32 + 1] if LONG_BITS == 64 else []))
def test_bool_parameter_refuses_other_ints(bool_kernel, records, value):
    function, out = bool_kernel
    records.clear()
    with pytest.raises(
        ValueError,
        match=rf"argument 1 \('i', int32\): the kernel declares a bool "
        rf"parameter, which takes 0, 1, False or True, not {value}",
    ):
        L._launch_kernel(function, 1, 1, 1, 1, 0, "Oii", (out, value, 7), 0)
    assert records.count() == 0
    with pytest.raises(OverflowError, match=r"argument 1 \('i', int32\)"):
        L._launch_kernel(function, 1, 1, 1, 1, 0, "Oii", (out, 2**70, 7), 0)
