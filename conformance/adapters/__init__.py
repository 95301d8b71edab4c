"""Adapters: how the harness reaches an implementation (in-process, stdio, a Python factory, presets)."""
