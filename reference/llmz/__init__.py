"""The llmz reference runtime."""
