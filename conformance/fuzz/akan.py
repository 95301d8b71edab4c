class AkanGenerator: pass
