"""Measure the constants the theorems assume (L, sigma^2, eps^2, B^2/G^2, G^2, kappa, F) on a model and data."""
