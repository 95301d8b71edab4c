"""The falai reference runtime."""
