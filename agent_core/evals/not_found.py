"""The ``answer_not_found`` check's detector, kept where the evals import it from: it lives in
:mod:`agent_core.text.not_found`, so the run outcome (:mod:`agent_core.records.outcome`) uses it too."""

from agent_core.text.not_found import says_not_found

__all__ = ["says_not_found"]
