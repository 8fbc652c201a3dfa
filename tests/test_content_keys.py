"""Content keys of input files (inexflow.io.content_keys): a file replaced by an older-dated one
gets a new key; an unchanged file is not hashed again."""
import hashlib
import os

import pytest

import inexflow.io.content_keys as ck
from inexflow.errors import InputError


def test_keys_follow_content_not_dates_and_are_hashed_once(tmp_path, monkeypatch):
    run, other, cache = tmp_path / "r.txt", tmp_path / "o.txt", tmp_path / "keys.arrow"
    run.write_bytes(b"1 Q0 a 1 1.0 x 0 10\n")
    other.write_bytes(b"1 Q0 b 1 1.0 x 0 10\n")
    keys = ck.file_keys({"r": run}, cache)
    assert keys == {"r": hashlib.blake2b(run.read_bytes(), digest_size=16).hexdigest()}
    hashed = []
    real = ck.content_key
    monkeypatch.setattr(ck, "content_key", lambda p: hashed.append(p) or real(p))
    assert ck.file_keys({"r": run}, cache) == keys and hashed == []
    st = run.stat()
    run.write_bytes(other.read_bytes())  # replaced by another run, dated 1000 s earlier
    os.utime(run, ns=(st.st_atime_ns, st.st_mtime_ns - 10**12))
    assert ck.file_keys({"r": run}, cache) == {"r": real(other)} != keys
    assert len(hashed) == 1


def test_a_broken_cache_is_a_cold_cache_and_a_missing_file_is_named(tmp_path):
    f, cache = tmp_path / "q.fol", tmp_path / "keys.arrow"
    f.write_text("1 Q0 a 0 10 0 0:10\n")
    cache.write_bytes(b"not parquet")
    assert ck.file_keys({"q": f}, cache) == {"q": ck.content_key(f)}
    with pytest.raises(InputError, match="gone.txt: run cannot be read: No such file"):
        ck.file_keys({"g": tmp_path / "gone.txt"}, cache, "run")


def test_hashing_a_few_files_keeps_the_cache_of_the_others(tmp_path, monkeypatch):
    """A shard job looks up (and may hash) its own documents only: the cache keeps every other
    file's key, so nothing is hashed twice."""
    files = {f"d{i}": tmp_path / f"d{i}.xml" for i in range(12)}
    for i, p in enumerate(files.values()):
        p.write_bytes(b"<a>%d</a>" % i)
    cache = tmp_path / "keys.arrow"
    every = ck.file_keys(files, cache)
    files["d0"].write_bytes(b"<a>changed</a>")
    assert ck.file_keys({"d0": files["d0"]}, cache)["d0"] != every["d0"]
    hashed = []
    real = ck.content_key
    monkeypatch.setattr(ck, "content_key", lambda p: hashed.append(p) or real(p))
    again = ck.file_keys(files, cache)
    assert hashed == [] and {k: v for k, v in again.items() if k != "d0"} == {k: v for k, v in every.items()
                                                                               if k != "d0"}


def test_a_cache_in_its_earlier_parquet_form_is_read_and_nothing_is_hashed_again(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    files = {f"d{i}": tmp_path / f"d{i}.xml" for i in range(3)}
    for i, f in enumerate(files.values()):
        f.write_text(f"<a>{i}</a>")
    keys = ck.file_keys(files, tmp_path / "first.arrow")
    table = ck._read_cache(tmp_path / "first.arrow")
    pq.write_table(table, tmp_path / "keys.parquet")  # the same rows as the earlier Parquet cache held them
    hashed = []
    real = ck.content_key
    monkeypatch.setattr(ck, "content_key", lambda p: hashed.append(p) or real(p))
    assert ck.file_keys(files, tmp_path / "keys.arrow") == keys and hashed == []
    (files["d1"]).write_text("<a>changed</a>")
    assert ck.file_keys(files, tmp_path / "keys.arrow")["d1"] == real(files["d1"]) and len(hashed) == 1
    assert (tmp_path / "keys.arrow").exists()  # written back in the Arrow form
    hashed.clear()
    assert ck.file_keys(files, tmp_path / "keys.arrow")["d1"] == real(files["d1"]) and hashed == []
