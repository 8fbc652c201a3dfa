"""Simulated campaigns: the settings (:mod:`.simconfig`) and the generator (:mod:`.simulate`)."""
