"""inexflow score --task thorough end to end on 2005 assessments, values by hand."""
import pytest

from conftest import parse_out, run_cli, write

ASSESS = """<assessments topic="1"><file name="A">
<element path="/article[1]" exhaustivity="2" size="100" rsize="50"/>
<element path="/article[1]/sec[1]" exhaustivity="2" size="50" rsize="50"/>
</file><file name="B">
<element path="/article[1]" exhaustivity="1" size="100" rsize="100"/>
</file></assessments>"""


def test_thorough_gen_by_hand(tmp_path):
    a = write(tmp_path / "a.xml", ASSESS)
    r = write(tmp_path / "r.txt", "1 Q0 C 1 3 x /article[1]\n1 Q0 A 2 2 x /article[1]/sec[1]\n")
    p = run_cli("score", "--task", "thorough", "--assessments", a, "--cutoffs", "1,2", "-q", r, check=0)
    v = parse_out(p.stdout)
    # gen = e*s/2: A/article 2*.5/2 = .5, A/sec 2*1/2 = 1, B/article 1*1/2 = .5 -> xI = 1, .5, .5
    # run gains: C unassessed 0, A/sec 1 -> xCG = 0, 1 ; xCI = 1, 1.5
    assert v[("nxCG[1]", "1")] == 0.0
    assert v[("nxCG[2]", "1")] == pytest.approx(1 / 1.5)
    # ep at rank 2: ideal reaches 1 at rank 1 -> 1/2 ; MAep = .5 / 3
    assert v[("MAep", "1")] == pytest.approx(0.5 / 3)
    assert v[("MAep", "all")] == v[("MAep", "1")] and v[("num_q", "all")] == 1


def test_assessment_directory_stands_for_its_files(tmp_path):
    write(tmp_path / "a" / "t1.xml", ASSESS)
    write(tmp_path / "a" / "t2.xml", ASSESS.replace('topic="1"', 'topic="2"'))
    r = write(tmp_path / "r.txt", "1 Q0 A 1 3 x /article[1]/sec[1]\n2 Q0 B 1 3 x /article[1]\n")
    v = parse_out(run_cli("score", "--task", "thorough", "--assessments", tmp_path / "a", "--cutoffs", "1", "-q", r,
                          check=0).stdout)
    assert v[("num_q", "all")] == 2 and v[("nxCG[1]", "1")] == 1.0 and v[("nxCG[1]", "2")] == 0.5
