"""One run while it runs: ``prepare`` (the one way to start a run), ``loop`` (model turn → tool
calls → context block), ``model_calls`` and ``dispatcher`` (the model and the tools, with
``retry`` and ``workers``), ``events`` (what a run tells its watchers), ``pricing`` (estimated
cost) and ``demo`` (scripted scenarios for presenters).

May import: everything below it (foundation, ``text``, ``records``, ``tools``, ``checks``,
``providers``, ``pgstore``, ``otel``). Imported by ``analysis``, ``evals``, ``cli`` and the pages.
"""
