"""Measured against predicted: a :class:`verify.spec.CheckSpec` in, a :class:`verify.pipeline.records.Verification`
out (:mod:`.check`), through exact moments on quadratics (:mod:`.exact`) or runs on a model with the constants
measured along the trajectory (:mod:`.trajectory`), the verdicts (:mod:`.verdicts`), the worst-case search
(:mod:`.worstcase`), the trend checks (:mod:`.trends`), one report (:mod:`.report`), a verify job
(:mod:`.job`), the ``measure`` command's policy (:mod:`.measurement`) and the whole main job (:mod:`.main`)."""
