"""inexflow.lazy: pandas imported on first use, and Snakemake's params check without pandas."""
import subprocess
import sys


def run_python(code: str) -> str:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_pandas_is_imported_at_the_first_attribute_use_and_then_is_the_module():
    out = run_python(
        "import sys\n"
        "from inexflow.lazy import pandas_on_first_use\n"
        "ns = {}\n"
        "pd = ns['pd'] = pandas_on_first_use(ns)\n"
        "before = 'pandas' in sys.modules\n"
        "df = pd.DataFrame({'a': [1, 2]})\n"
        "import pandas\n"
        "print(before, ns['pd'] is pandas, int(df['a'].sum()), pandas_on_first_use({}) is pandas)\n")
    assert out == "False True 3 True"


def test_the_modules_the_snakefile_imports_import_no_pandas():
    """The imports of workflow/rules/common.smk and a config check over them."""
    out = run_python(
        "import sys\n"
        "from inexflow import stageserver\n"
        "from inexflow.campaign import runs_of\n"
        "from inexflow.config import prepare_config\n"
        "from inexflow.measures import needs, FAMILIES\n"
        "from inexflow.measures.cutoff import table_cutoffs\n"
        "from inexflow.options import Options\n"
        "from inexflow.stage import code_fingerprint\n"
        "from inexflow.analysis.rejudge import analysis_measures\n"
        "from inexflow.measures import check_measures\n"
        "code_fingerprint(); analysis_measures()\n"
        "print('pandas' in sys.modules, sorted(FAMILIES)[:2], sorted(needs(['xcg'])))\n")
    assert out == "False ['bepd', 'bic'] ['recallbases']"


def test_snakemake_params_are_serialised_as_before_without_importing_pandas():
    """Snakemake's own serialiser for every kind of param, before and after pandas is imported
    (then a DataFrame param is hashed as Snakemake does)."""
    out = run_python(
        "import sys\n"
        "from snakemake.persistence import PersistenceBase\n"
        "original = PersistenceBase._serialize_param_pandas\n"
        "from inexflow.lazy import spare_snakemake_pandas\n"
        "spare_snakemake_pandas(); spare_snakemake_pandas()\n"
        "s = PersistenceBase._serialize_param_pandas\n"
        "values = [None, 1, 2.5, 'x', [1, 'a'], {'k': (1, 2)}, object()]\n"
        "got = [s(None, v) for v in values]\n"
        "want = [PersistenceBase._serialize_param_builtin(None, v) for v in values]\n"
        "no_pandas = 'pandas' not in sys.modules\n"
        "import pandas as pd\n"
        "df = pd.DataFrame({'a': [1, 2]})\n"
        "print(no_pandas, got == want, s(None, df) == original(None, df), s(None, df) != want[-1],\n"
        "      s.spares_pandas, s is PersistenceBase._serialize_param_pandas)\n")
    assert out == "True True True True True True"


def test_snakemake_stores_a_script_jobs_params_as_before_without_importing_pandas():
    """What the script preamble stores for plain params (patched: no pandas import), and for an
    array and, once pandas is imported, a DataFrame (Snakemake's own method then)."""
    out = run_python(
        "import sys\n"
        "import numpy as np\n"
        "from snakemake.iocontainers import Params, Snakemake\n"
        "original = Snakemake._safely_store_params\n"
        "from inexflow.lazy import spare_snakemake_pandas\n"
        "spare_snakemake_pandas(); spare_snakemake_pandas()\n"
        "patched = Snakemake._safely_store_params\n"
        "def state(store, **params):\n"
        "    s = object.__new__(Snakemake)\n"
        "    store(s, Params(fromdict=params))\n"
        "    return list(s._params_store), list(s._params_store._get_names()), s._params_types\n"
        "plain = dict(code='abc', cfg={'a': [1, 2]}, n=3, none=None)\n"
        "mine = state(patched, **plain)\n"
        "no_pandas = 'pandas' not in sys.modules\n"
        "arr = state(patched, a=np.arange(3), b='x')  # Snakemake's own method: it imports pandas\n"
        "same = mine == state(original, **plain)\n"
        "import pandas as pd\n"
        "df = state(patched, t=pd.DataFrame({'a': [1]}))\n"
        "print(same, no_pandas, arr == state(original, a=np.arange(3), b='x'), arr[2],\n"
        "      df == state(original, t=pd.DataFrame({'a': [1]})), df[2], patched is not original)\n")
    assert out == "True True True {0: 'np.ndarray'} True {0: 'pd.DataFrame'} True"
