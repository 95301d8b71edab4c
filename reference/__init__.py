"""Deliberately simple reference runtimes for llmz, @falai/agent triggers and the Akan in-page agent.

They are the executable form of the rule catalogue in ``spec/``: readable before clever, deterministic
(virtual clock, seeded ids, no network), with every policy a pure function citing its rule id.
"""
