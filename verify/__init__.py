"""The empirical half of sfltheory: models, data, split-learning algorithms and constant estimators.

Imports torch; ``sfltheory`` never imports this package: the ``sfltheory`` command (:mod:`verify.app`) and the main
job (:mod:`verify.pipeline.main`) compose the two halves here.

* ``verify.models``: the models the seed papers use (MLP, CNN, LeNet-5, VGG-11, AlexNet, ResNet-18/50)
  and the cut points of any ``torch.nn.Module`` as a :class:`sfltheory.plan.cuts.CutTable`.

Constant estimation (L, sigma^2, eps^2, ...) is issue 5.
"""
