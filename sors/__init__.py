"""sors — Social Outlier Research Service."""

__version__ = "0.1.0"
