"""The falai reference runtime: ``@falai/agent`` 4.0 triggers, in plain Python.

Where things live (each module does one job):

- ``routing``: who gets a customer message. A pure function with the two thresholds (40, 15).
- ``repeat``: the claim ledger; may a trigger start a run, and which claim does a start write.
- ``timers``: wake keys (silence, after-start, wait) and business-hours adjustment; pure.
- ``conditions`` / ``templates``: the declarative ``if``/``while`` and ``{{input.x}}`` rendering.
- ``session``: the session state and the turn result, with their record forms.
- ``engine``: runs and the floor (start, step, suspend, resume, end).
- ``messages``: a customer message turn in the documented order.
- ``agent``: ``Agent.turn`` for messages, events, host starts and wakes; arms silence wakes.
- ``play``: plays a scenario's steps over the virtual clock and returns the record.
- ``mutants``: deliberately broken variants, one rule each.

The records it produces are specified in ``spec/protocol/records/falai.md``.
"""
