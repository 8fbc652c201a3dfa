"""Meta-evaluation analyses (Pal, Mitra & Kamps; Ogilvie & Lalmas; INEX 2005 paper section 7).

- :mod:`.rankcorr`      Kendall tau-b and tau_AP between system rankings
- :mod:`.rejudge`       re-scoring focused passage runs under reduced judgements, from cached data
- :mod:`.stability`     pool sampling, pool-depth reduction and topic sampling stability
- :mod:`.swap`          swap error rates over disjoint topic sets, exponential fit
- :mod:`.logo`          leave-one-group-out pooling bias
- :mod:`.significance`  paired t, Wilcoxon, sign and bootstrap tests, Benjamini-Yekutieli,
                        test error rates, agreement between quantisations/measures
"""
