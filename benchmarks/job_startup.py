"""Per-job start-up of a workflow stage (issue 16 item 1): what a job costs before its work.

Times, as medians of fresh processes:

- a bare interpreter, then the imports a stage makes (numpy, pandas, the library modules of
  parse_run and score);
- in a throw-away Snakemake workflow, JOBS trivial jobs that import pandas, run through
  ``script:`` (as inexflow's rules are) and through ``shell:`` (``python FILE``), and JOBS
  that import only numpy and pyarrow through ``script:``, from their ``benchmark:`` records,
  which time the job as Snakemake starts it.

Prints seconds and each figure as a ratio of the pandas import (the floor of any stage).

    python benchmarks/job_startup.py [--repeat 7] [--jobs 12]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IMPORTS = {
    "python (no imports)": "pass",
    "import numpy": "import numpy",
    "import pandas": "import pandas",
    "parse_run's imports": "import inexflow.model.runs, inexflow.model.pool, inexflow.measures.output, inexflow.campaign.stage, "
                           "inexflow.io.tables",
    "score's imports": "import inexflow.model.assessments, inexflow.model.runs, inexflow.measures, "
                       "inexflow.model.options, inexflow.measures.session, inexflow.campaign.stage, inexflow.io.tables",
}

SNAKEFILE = '''
import sys
N = range({jobs})
rule all:
    input: expand("s/{{i}}.txt", i=N), expand("h/{{i}}.txt", i=N), expand("a/{{i}}.txt", i=N)
rule via_script:
    output: "s/{{i}}.txt"
    benchmark: "b/script/{{i}}.tsv"
    script: "stage.py"
rule via_script_arrow:
    output: "a/{{i}}.txt"
    benchmark: "b/script_arrow/{{i}}.tsv"
    script: "stage_arrow.py"
rule via_shell:
    output: "h/{{i}}.txt"
    benchmark: "b/shell/{{i}}.tsv"
    params: py=sys.executable
    shell: "{{params.py}} stage_shell.py {{output:q}}"
'''


def median_run(code: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def snakemake_jobs(jobs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "Snakefile").write_text(SNAKEFILE.format(jobs=jobs))
        (d / "stage.py").write_text("import pandas\nopen(snakemake.output[0], 'w').write('x')\n")
        (d / "stage_shell.py").write_text("import sys, pandas\nopen(sys.argv[1], 'w').write('x')\n")
        (d / "stage_arrow.py").write_text("import numpy, pyarrow.parquet\nopen(snakemake.output[0], 'w').write('x')\n")
        subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "--quiet"], cwd=d, check=True,
                       capture_output=True)
        out = {}
        for how in ("script", "script_arrow", "shell"):
            vals = [float((f.read_text().splitlines()[1]).split("\t")[0]) for f in (d / "b" / how).glob("*.tsv")]
            out[f"Snakemake {how}: job"] = statistics.median(vals)
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=12)
    args = ap.parse_args()
    rows = {name: median_run(code, args.repeat) for name, code in IMPORTS.items()}
    rows.update(snakemake_jobs(args.jobs))
    base = rows["import pandas"]
    for name, t in rows.items():
        print(f"{name:28s} {t:6.3f} s  {t / base:5.2f} x the pandas import")


if __name__ == "__main__":
    main()
