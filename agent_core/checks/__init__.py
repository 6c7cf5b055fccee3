"""The answer check: every figure and contact detail of an answer looked up in the goal and the
successful tool results (``grounding``, ``claims``).

May import: the foundation modules, ``text``, ``records`` (the record's types) and ``tools``
(the calculator's arithmetic). Imported by the loop, the providers, evals and the pages.
"""
