"""Numbers and strings between numpy and Arrow without importing pandas.

pyarrow imports pandas, when it is installed, the first time ``pa.array``, ``pa.scalar`` or
``Array.to_numpy`` is called (to check whether the data is a pandas object): half a second of a
job that never uses pandas. These helpers go through the arrays' buffers instead, for the
null-free primitive arrays the fast paths use (:mod:`inexflow.io.run_arrow`,
:mod:`inexflow.measures.trec_arrays`). A change that could go upstream: let
``Array.to_numpy`` and ``pa.array(numpy array)`` skip the pandas check for primitive types.

Arrow's compute functions are called by name through :func:`compute`, :func:`cast` and
:func:`take` (``pyarrow.compute.call_function``, public). Importing ``pyarrow.compute`` builds
a Python wrapper with its documentation for each of its functions, about 21 ms of a start-up
of about 0.15 s that ``call_function`` does not need; a change that could go upstream: build
those wrappers on first use (a module ``__getattr__``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from pyarrow.compute import CastOptions, MatchSubstringOptions, SetLookupOptions, SortOptions, call_function

__all__ = ["MatchSubstringOptions", "SetLookupOptions", "SortOptions", "arrow_of", "bools_of", "cast", "compute",
           "numpy_of", "strings_of", "take"]

_NUMPY = {pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
          pa.uint8(): np.uint8, pa.uint16(): np.uint16, pa.uint32(): np.uint32, pa.uint64(): np.uint64,
          pa.float32(): np.float32, pa.float64(): np.float64}
_ARROW = {np.dtype(v): k for k, v in _NUMPY.items()}


def numpy_of(arr, fill=None) -> np.ndarray:
    """An Arrow array (or chunked array) of integers or floats as a numpy array (a view of its
    buffer where it has one chunk and no nulls); nulls become ``fill`` (an error without)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    dtype = np.dtype(_NUMPY[arr.type])
    out = np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)
    if arr.null_count:
        if fill is None:
            raise ValueError("numpy_of: the array has nulls and no fill value was given")
        bits = np.unpackbits(np.frombuffer(arr.buffers()[0], dtype=np.uint8), bitorder="little")
        out = np.where(bits[arr.offset:arr.offset + len(arr)].astype(bool), out, fill)
    return out


def stable_order(key: np.ndarray) -> np.ndarray:
    """The positions of ``key`` (non-negative integers) in ascending order, ties in position
    order (a stable sort): one ``np.sort`` of each key with its position in the low bits where
    both fit in 63 bits (several times faster than ``np.argsort``), else ``np.argsort``."""
    key = np.asarray(key, dtype=np.int64)
    bits = max(int(len(key) - 1).bit_length(), 1)
    if not len(key) or key.min() < 0 or int(key.max()) >= 2 ** (63 - bits):
        return np.argsort(key, kind="stable")
    return np.sort(key << bits | np.arange(len(key), dtype=np.int64)) & ((1 << bits) - 1)


def compute(name: str, *args, options=None):
    """Arrow's compute function ``name`` (``dictionary_encode``, ``index_in``, ...) of ``args``,
    with its ``options`` object."""
    return call_function(name, list(args), options)


def cast(values, to: pa.DataType):
    """``values`` cast to the type ``to`` (checked: an error where a value does not fit)."""
    return call_function("cast", [values], CastOptions.safe(to))


def take(values, indices):
    """The ``indices`` (an Arrow array) of ``values``."""
    return call_function("take", [values, indices])


def bools_of(values) -> np.ndarray:
    """An Arrow boolean array without nulls as a numpy one."""
    return numpy_of(cast(values, pa.int8())).astype(bool)


def arrow_of(values: np.ndarray) -> pa.Array:
    """A numpy array of integers or floats as an Arrow array (sharing its buffer)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(_ARROW[values.dtype], len(values), [None, pa.py_buffer(values)])


def strings_of(values) -> pa.Array:
    """Python strings as an Arrow string array (``large_string`` beyond 2 GiB of text)."""
    data = [v.encode("utf-8") for v in values]
    ends = np.cumsum([len(d) for d in data], dtype=np.int64)
    large = bool(len(ends)) and ends[-1] >= 2**31
    offsets = np.concatenate([np.zeros(1, np.int64), ends]).astype(np.int64 if large else np.int32)
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(data),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])
