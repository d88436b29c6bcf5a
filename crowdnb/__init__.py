"""Measuring annotation quality: crowd agreement, worker and item quality, annotation models, and metrics against human judgment

Modules:

- `crowdnb.model_a`: Model A of Rzhetsky, Shatkay & Wilbur (2009): each evaluator is right with probability θ, and a wrong triplet of annotations agrees or disagrees at rates fixed by the value frequencies ω. Tables 2–8 from code, ML/MAP estimation on any set of evaluator triplets, correctness labels, and the multi-dimensional extension."""

__version__ = "0.0.1"
