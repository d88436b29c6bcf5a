"""Measuring annotation quality: crowd agreement, worker and item quality, annotation models, and metrics against human judgment"""

__version__ = "0.0.1"
