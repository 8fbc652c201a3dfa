"""The model: assessments, runs, scoring options, quantisation, recall-bases and pools.

Built on the readers (:mod:`inexflow.io`); nothing here imports the measures or anything above them.
"""
