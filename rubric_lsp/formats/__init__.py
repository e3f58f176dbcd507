"""Supported file formats: their detection, schema models and checkers."""
