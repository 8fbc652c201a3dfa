"""The campaign and the workflow support: the config (:mod:`.config`), the evaluation tasks
(:mod:`.tasks`), the stage scripts' runtime (:mod:`.stage`), deployment (:mod:`.deploy`) and the report
pages (:mod:`.report`).
"""
