"""The passage path (inexflow.front.passages: FOL runs on FOL qrels scored from Arrow columns,
without pandas) prints what the general path prints, warnings included, and leaves to the
general path the runs and options it does not handle."""

import subprocess
import sys

import numpy as np
import pytest

from conftest import run_cli, write
from inexflow.front import passages

TASKS = ("focused", "relevant-in-context", "best-in-context")


def fol_case(seed: int, numbers: bool = True) -> tuple[str, dict[str, list[str]]]:
    """Seeded FOL qrels and, per task, three run texts over their topics: relevant and judged
    non-relevant documents, a topic with nothing relevant, document ids that are numbers (read
    as numbers; the qrels also judge ``0123``, which the run's ``123`` is not) or, with
    ``numbers`` False, names and a number with a leading zero, results past their document's
    end, results of documents the qrels do not hold and a topic they do not assess."""
    rng = np.random.default_rng(seed)
    topics = [str(2009000 + t) for t in range(1, 6)]
    names = [str(rng.integers(1, 10**7)) if numbers else f"d{k:03d}" for k in range(30)]
    if not numbers:
        names[3] = "0042"
    names = list(dict.fromkeys(names))
    length = {d: int(rng.integers(300, 3000)) for d in names}
    qrels, spans = [], {}
    for ti, t in enumerate(topics):
        for d in rng.choice(names, 12, replace=False).tolist():
            if ti == 4 or rng.random() < 0.4:  # judged non-relevant (every document of the last topic)
                qrels.append(f"{t} Q0 {d} 0 {length[d]}" + (" 0" if rng.random() < 0.5 else ""))
                continue
            cuts = np.sort(rng.choice(np.arange(1, length[d]), 2 * int(rng.integers(1, 4)), replace=False))
            ps = [(int(a), int(b - a)) for a, b in zip(cuts[0::2], cuts[1::2])]
            spans[t, d] = ps
            bep = ps[0][0] + int(rng.integers(-50, 50))
            qrels.append(f"{t} Q0 {d} {sum(n for _, n in ps)} {length[d]} {max(bep, 0)} "
                         + " ".join(f"{a}:{n}" for a, n in ps))
    # documents the qrels do not hold; with numbers, one the qrels write with a leading zero
    extra = ["999999999", "123"] if numbers else ["999999999", "x"]
    if numbers:
        qrels.append(f"{topics[0]} Q0 0123 10 500 0 0:10")
    runs = {task: [] for task in TASKS}
    for r in range(3):
        results = []  # (topic, doc, offset, length), articles' passages disjoint
        for t in [*topics, "2009099"][: 4 + r]:
            for d in rng.choice([*names, *extra], 10, replace=False).tolist():
                end = length.get(d, 2000) + (200 if rng.random() < 0.2 else 0)
                cuts = np.sort(rng.choice(np.arange(0, end), 2 * int(rng.integers(1, 4)), replace=False))
                results += [(t, d, int(a), int(b - a)) for a, b in zip(cuts[0::2], cuts[1::2])]
        order = rng.permutation(len(results))
        focused = [results[i] for i in order]
        focused.sort(key=lambda x: [*topics, "2009099"].index(x[0]))  # each topic's results together
        by_article: dict = {}
        for x in focused:
            by_article.setdefault((x[0], x[1]), []).append(x)
        ric = [x for group in by_article.values() for x in group]
        bic = [group[0] for group in by_article.values()]
        for task, rows in zip(TASKS, (focused, ric, bic)):
            runs[task].append("".join(f"{t} Q0 {d} {k} {-k / 7!r} run{r} {a} {n}\n"
                                      for k, (t, d, a, n) in enumerate(rows, 1)))
    t, q0, d, rel, rest = next(x for x in qrels if len(x.split()) > 6).split(" ", 4)
    qrels.append(f"{t} Q0 {d}x {int(rel) + 1} {rest}")  # a line the reader warns about (rel_chars not its passages')
    return "\n".join(qrels) + "\n", runs


def declined(text: str, task: str) -> dict[str, str]:
    """Runs made from ``text`` that the passage path leaves to the general path (each is read
    with a warning there, or stopped with an error)."""
    lines = text.splitlines(keepends=True)
    t, _, d, _, _, rid, a, n = lines[1].split()

    def ranked(rows):  # ranks in file order
        return "".join(" ".join([*x.split()[:3], str(k), *x.split()[4:]]) + "\n" for k, x in enumerate(rows, 1))
    out = {"dup": ranked(lines[:2] + lines[1:]), "blank": "".join(lines[:3] + ["\n"] + lines[3:]),
           "runids": "".join(lines[:-1] + [lines[-1].replace(rid, "other")]),
           "negative": "".join([lines[0].replace(" 1 ", " -1 ", 1)] + lines[1:]),
           "falls": "".join([lines[1], lines[0]] + lines[2:]),
           "six": "".join(" ".join(x.split()[:6]) + "\n" for x in lines),
           "split": "".join(lines[2:] + lines[:2]),
           "overlap": ranked(lines[:2] + [f"{t} Q0 {d} 0 0.0 {rid} {int(a) + 1} {n}\n"] + lines[2:])}
    if task == "relevant-in-context":  # a result of another article moved between two of one article
        key = [x.split()[0:3:2] for x in lines]
        i = next(i for i in range(len(lines) - 1) if key[i] == key[i + 1])
        j = next(j for j in range(i + 2, len(lines)) if key[j][0] == key[i][0] and key[j] != key[i])
        out["interleaved"] = ranked(lines[:i + 1] + [lines[j]] + lines[i + 1:j] + lines[j + 1:])
    if task == "best-in-context":
        out["second"] = ranked(lines[:2] + [f"{t} Q0 {d} 0 0.0 {rid} {int(a) + int(n) + 1} 5\n"] + lines[2:])
    return out


def both_paths(monkeypatch, *args):
    """``inexflow score ARGS`` by the passage path and by the general path: the two results."""
    fast = run_cli("score", "-j", "1", *args)
    with monkeypatch.context() as m:
        m.setattr(passages, "handles", lambda args: False)
        general = run_cli("score", "-j", "1", *args)
    return fast, general


def said(p) -> list[str]:
    return [line for line in p.stderr.splitlines() if line.startswith("inexflow:")]


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("seed,numbers,flags", [
    (0, True, []), (1, True, ["-q"]), (2, False, ["-q", "-c"]), (3, True, ["-q", "--format", "tsv"]),
    (4, False, ["--format", "trec", "-q", "-e"]), (5, True, ["--format", "trec_eval", "-q"]),
    (6, True, ["-q", "-m", "official"]), (7, False, ["-m", "num_rel_ret", "-m", "num_ret", "--format", "trec_eval"]),
    (8, True, ["-q", "--beta", "1", "-n", "100"])])
def test_the_passage_path_prints_what_the_general_path_prints(tmp_path, monkeypatch, task, seed, numbers, flags):
    qrels, runs = fol_case(seed, numbers)
    q = write(tmp_path / "q.fol", qrels)
    paths = [write(tmp_path / f"r{i}.run", text) for i, text in enumerate(runs[task])]
    paths[1] = f"{tmp_path}/./r1.run"  # named a/b.run in what is said of it, a/./b.run in the <eval> line
    scored = []
    score_path = passages.Scorer.score_path
    monkeypatch.setattr(passages.Scorer, "score_path", lambda self, p: scored.append(score_path(self, p)) or scored[-1])
    fast, general = both_paths(monkeypatch, "--task", task, *flags, "--assessments", q, *paths)
    assert fast.returncode == general.returncode == 0, fast.stderr + general.stderr
    assert fast.stdout == general.stdout and said(fast) == said(general)
    assert len(scored) == 3 and None not in scored  # scored by the passage path, not handed on
    assert "2009099" in runs[task][2]  # a topic the qrels do not assess, said of the run by both paths
    assert "1 topic not in the assessments is ignored" in fast.stderr


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_runs_the_passage_path_leaves_get_what_the_general_path_says(tmp_path, monkeypatch, task):
    qrels, runs = fol_case(11)
    q = write(tmp_path / "q.fol", qrels)
    good = write(tmp_path / "good.run", runs[task][0])
    scored = []
    score_path = passages.Scorer.score_path
    monkeypatch.setattr(passages.Scorer, "score_path", lambda self, p: scored.append(score_path(self, p)) or scored[-1])
    for name, text in declined(runs[task][0], task).items():
        odd = write(tmp_path / f"{name}.run", text)
        scored.clear()
        fast, general = both_paths(monkeypatch, "--task", task, "-q", "--assessments", q, good, odd)
        assert (fast.returncode, fast.stdout, said(fast)) == (general.returncode, general.stdout, said(general)), name
        assert scored[0] is not None and scored[1] is None, name  # the good run scored here, the odd one not
        assert len(set(said(fast))) == len(said(fast)), name  # nothing said twice (what the passage path said of the odd run)
        assert "differs from the passages' total" in said(fast)[0], name


def test_a_measure_the_family_lacks_is_the_same_error(tmp_path, monkeypatch):
    qrels, runs = fol_case(0)
    q = write(tmp_path / "q.fol", qrels)
    r = write(tmp_path / "r.run", runs["focused"][0])
    fast, general = both_paths(monkeypatch, "--task", "focused", "-m", "runid", "--assessments", q, r)
    assert (fast.returncode, fast.stdout, said(fast)) == (general.returncode, general.stdout, said(general))
    assert fast.returncode == 2 and "'runid' is not a measure of the families passage" in fast.stderr


def test_the_passage_path_declines_what_it_does_not_handle(tmp_path):
    from inexflow.front.cli import build_parser

    qrels, _ = fol_case(0)
    q = write(tmp_path / "q.fol", qrels)
    trec = write(tmp_path / "q.trec", "2009001 0 d1 1\n")
    empty = write(tmp_path / "empty.fol", "\n")

    def handled(*args):
        return passages.handles(build_parser().parse_args(["score", *args, "r.run"]))
    assert handled("--task", "focused", "--assessments", str(q))
    assert handled("--task", "CO.Focussed", "--family", "passage", "--assessments", str(q), "-q", "-c")
    assert handled("--task", "BestInContext", "--assessments", str(q), "--format", "tsv")
    for args in (["--task", "thorough"], ["--task", "focused", "--family", "xcg"], ["--task", "focused", "--regroup"],
                 ["--task", "focused", "--topics", "2009001"], ["--task", "focused", "--format", "json"],
                 ["--task", "focused", "--collection", str(tmp_path)], ["--task", "focused", "--assessments", str(q)],
                 ["--task", "focused", "--assessments-format", "trec"]):
        assert not handled(*args, "--assessments", str(q)), args
    assert not handled("--task", "focused", "--assessments", str(trec))
    assert not handled("--task", "focused", "--assessments", str(empty), "--assessments-format", "fol")


@pytest.mark.parametrize("task", TASKS)
def test_passage_scoring_imports_no_pandas(tmp_path, task):
    qrels, runs = fol_case(2, numbers=False)
    q = write(tmp_path / "q.fol", qrels)
    paths = [str(write(tmp_path / f"r{i}.run", text)) for i, text in enumerate(runs[task])]
    code = ("import sys; from inexflow.front.cli import main; "
            f"main(['score', '--task', {task!r}, '-q', '--assessments', {str(q)!r}, *{paths!r}]); "
            "assert 'pandas' not in sys.modules, 'pandas imported'")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "MAiP" in p.stdout or "MAgP" in p.stdout
