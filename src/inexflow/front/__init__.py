"""Front ends: the command line (:mod:`.cli`) and the notebook API (:mod:`.api`); the ir_measures
provider is :mod:`inexflow.irmeasures`.
"""
