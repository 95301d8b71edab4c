"""The akan reference runtime."""
