class LlmzGenerator: pass
