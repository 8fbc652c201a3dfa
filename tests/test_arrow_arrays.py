"""The numpy and Arrow helpers of the fast paths (:mod:`inexflow.io.arrow_arrays`), held to
numpy's and pyarrow's own functions."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from inexflow.io.arrow_arrays import arrow_of, bools_of, cast, compute, numpy_of, stable_order, take


@pytest.mark.parametrize("n, high", [(0, 1), (1, 1), (7, 3), (1000, 50), (100_000, 2**40), (1000, 2**62)])
def test_stable_order_is_numpys_stable_argsort(n, high):
    key = np.random.default_rng(n).integers(0, high, n)  # ties where high is small; the last too wide to pack
    assert np.array_equal(stable_order(key), np.argsort(key, kind="stable"))


def test_compute_helpers_give_what_pyarrow_compute_gives():
    words = pa.array([b"b", b"a", b"b", b"10"], pa.binary())
    assert compute("dictionary_encode", words).equals(pc.dictionary_encode(words))
    assert cast(words, pa.string()).equals(pc.cast(words, pa.string()))
    assert take(words, arrow_of(np.array([3, 0]))).to_pylist() == [b"10", b"b"]
    assert numpy_of(cast(take(words, arrow_of(np.array([3]))), pa.int64())).tolist() == [10]
    assert bools_of(compute("not_equal", words[1:], words[:-1])).tolist() == [True, True, True]
    with pytest.raises(pa.ArrowInvalid):
        cast(pa.array([b"\xff"], pa.binary()), pa.string())  # not UTF-8: refused, as the readers need
