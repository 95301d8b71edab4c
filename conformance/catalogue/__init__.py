"""The rule catalogue: its model, loader, id ledger and traceability report."""
