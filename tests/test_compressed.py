"""Compressed inputs (gzip, bzip2, xz; :mod:`inexflow.io.compressed`): recognised from their
first bytes, never their names, and scored exactly as the same files uncompressed, by the CLI,
the Python API and the workflow's run discovery; a truncated or corrupt archive is one error
line naming the file."""

import bz2
import gzip
import lzma
import shutil

import pytest

import inexflow
from conftest import TEST_DATA, run_cli, write
from inexflow.io.compressed import compression_of, open_bytes, read_bytes

REAL = TEST_DATA / "inex2009-2010"
COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


def body(text):
    """What ``inexflow score`` printed, without the ``<eval ... file="..">`` lines that name the file."""
    return [line for line in text.splitlines() if not line.startswith("<eval")]


def compressed_copy(src, dest, kind):
    """``src`` compressed with ``kind`` (``gz``, ``bz2``, ``xz``) into ``dest``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(COMPRESS[kind](src.read_bytes()))
    return dest


def test_the_committed_gzip_files_score_as_the_official_tool(shared_data):
    # the committed .gz files as they are, against the official tool's committed output, and
    # the same as the unpacked files
    args = ("score", "--task", "focused", "-q", "--assessments")
    packed = run_cli(*args, REAL / "qrels-2009-2010.fol.gz", REAL / "runs" / "bert-focused.run.gz", check=0)
    plain = run_cli(*args, shared_data / "qrels-2009-2010.fol", shared_data / "runs" / "bert-focused.run", check=0)
    want = gzip.decompress((REAL / "reference" / "bert-focused.f.q.out.gz").read_bytes()).decode()
    assert body(packed.stdout) == body(plain.stdout) == body(want)
    assert 'file="' + str(REAL / "runs" / "bert-focused.run.gz") in packed.stdout


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["bz2", "xz"])
def test_bzip2_and_xz_are_recognised_by_content_not_name(shared_data, tmp_path, kind):
    # compressed data under a plain name, and plain data under a compressed name
    q = compressed_copy(shared_data / "qrels-2009-2010.fol", tmp_path / "qrels.fol", kind)
    r = shutil.copy(shared_data / "runs" / "bert-bic.run", tmp_path / f"bic.run.{kind}")
    got = run_cli("score", "--task", "best-in-context", "--assessments", q, r, check=0)
    want = run_cli("score", "--task", "best-in-context", "--assessments", shared_data / "qrels-2009-2010.fol",
                   shared_data / "runs" / "bert-bic.run", check=0)
    assert body(got.stdout) == body(want.stdout) and len(body(got.stdout)) > 5


def test_xml_runs_assessment_directories_and_topics(tmp_path):
    # INEX 2005 XML assessments (a directory of per-topic files), an XML run and the topic file,
    # all compressed, each with another compressor
    sim = tmp_path / "sim"
    run_cli("simulate", "--out", sim, "--seed", "3", "--docs", "40", "--topics", "4", "--groups", "1",
            "--results", "20", "--structure", "inex2005", check=0)
    packed = tmp_path / "packed"
    for i, f in enumerate(sorted((sim / "assessments" / "CO+S").iterdir())):
        kind = list(COMPRESS)[i % 3]
        compressed_copy(f, packed / "CO+S" / f"{f.name}.{kind}", kind)
    run = next((sim / "runs").glob("*thorough*.xml"))
    zrun = compressed_copy(run, packed / "run.xml.xz", "xz")
    ztopics = compressed_copy(sim / "topics.xml", packed / "topics.xml.bz2", "bz2")
    args = ("score", "--task", "thorough", "-q", "--assessments")
    got = run_cli(*args, packed / "CO+S", zrun, check=0)
    want = run_cli(*args, sim / "assessments" / "CO+S", run, check=0)
    assert body(got.stdout) == body(want.stdout) and len(body(got.stdout)) > 20
    checked = run_cli("validate", "--task", "thorough", "--topics", ztopics, "--assessments", packed / "CO+S", zrun)
    assert checked.returncode == 0 and f"{zrun}: OK (run " in checked.stdout, checked.stdout + checked.stderr
    # the Python API reads the same files
    a = inexflow.evaluate(str(packed / "CO+S"), str(zrun), task="thorough")
    b = inexflow.evaluate(str(sim / "assessments" / "CO+S"), str(run), task="thorough")
    assert len(a) > 20 and a.reset_index(drop=True).equals(b.reset_index(drop=True))


def test_trec_document_runs_on_the_fast_path(tmp_path):
    from test_trec import random_case

    _, _, qrels, run = random_case(4)
    q, r = write(tmp_path / "q.trec", qrels), write(tmp_path / "r.run", run)
    zq, zr = compressed_copy(q, tmp_path / "q.trec.gz", "gz"), compressed_copy(r, tmp_path / "r.run.bz2", "bz2")
    args = ("score", "--family", "trec", "-q", "--assessments")
    assert body(run_cli(*args, zq, zr, check=0).stdout) == body(run_cli(*args, q, r, check=0).stdout)


@pytest.mark.parametrize("kind, damage, problem", [
    ("gz", lambda b: b[: len(b) // 2], "truncated gzip archive"),
    ("bz2", lambda b: b[: len(b) // 2], "truncated bzip2 archive"),
    ("xz", lambda b: b[: len(b) // 2], "truncated xz archive"),
    ("gz", lambda b: b[:-8] + bytes(8), "corrupt gzip archive"),  # a wrong checksum
    ("bz2", lambda b: b[:10] + b"not bzip2 data at all" + b[31:], "corrupt bzip2 archive"),
])
@pytest.mark.slow
def test_a_damaged_archive_is_one_error_naming_the_file(shared_data, tmp_path, kind, damage, problem):
    good = COMPRESS[kind]((shared_data / "runs" / "bert-focused.run").read_bytes())
    bad = tmp_path / f"run.{kind}"
    bad.write_bytes(damage(good))
    p = run_cli("score", "--task", "focused", "--assessments", REAL / "qrels-2009-2010.fol.gz", bad)
    errors = [line for line in p.stderr.splitlines() if "error" in line]
    assert p.returncode == 2 and errors == [line for line in errors if line.startswith(f"inexflow: error: {bad}: ")]
    assert len(errors) == 1 and problem in errors[0] and "Traceback" not in p.stderr
    # the same as qrels, and through the sniffer that reads the head only
    p = run_cli("score", "--task", "focused", "--assessments", bad, REAL / "runs" / "bert-focused.run.gz")
    assert p.returncode == 2 and f"inexflow: error: {bad}: " in p.stderr and "Traceback" not in p.stderr


def test_plain_files_are_read_as_they_are(tmp_path):
    plain = write(tmp_path / "r.gz", "1 Q0 d1 1 1.0 x\n")  # a compressed name, plain data
    assert compression_of(plain.read_bytes()) is None and read_bytes(plain) == plain.read_bytes()
    with open_bytes(plain) as fh:
        assert fh.read() == plain.read_bytes()
    assert [compression_of(f(b"x")) for f in COMPRESS.values()] == ["gzip", "bzip2", "xz"]


def test_the_workflow_discovers_compressed_runs_by_their_file_name(tmp_path):
    # a run glob matches compressed runs; a run is named by its file name without the
    # compression suffix and the extension (a.txt.gz is run a), as inexflow check-config shows
    write(tmp_path / "q.fol", "1 Q0 d1 10 100 0 0:10\n")
    run = "1 Q0 d1 1 1.0 r 0 10\n"
    for name, data in (("a.txt.gz", gzip.compress(run.encode())), ("b.txt", run.encode())):
        (tmp_path / "runs").mkdir(exist_ok=True)
        (tmp_path / "runs" / name).write_bytes(data)
    write(tmp_path / "c.yaml", f"campaign: c\nassessments: {{path: {tmp_path / 'q.fol'}}}\n"
          f"runs: [{{path: '{tmp_path / 'runs' / '*'}', task: focused}}]\nanalysis: false\n")
    p = run_cli("check-config", "--configfile", tmp_path / "c.yaml")
    assert p.returncode == 0 and "2 runs" in p.stdout, p.stdout + p.stderr
    from inexflow.campaign.config import load_config

    runs = load_config([tmp_path / "c.yaml"])[1].runs
    assert {k: v["file"] for k, v in runs.items()} == {"a": str(tmp_path / "runs" / "a.txt.gz"),
                                                        "b": str(tmp_path / "runs" / "b.txt")}
