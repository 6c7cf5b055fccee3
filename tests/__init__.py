"""The test suite (a regular package, so that an installed distribution shipping a top-level
``tests`` package — textstat does — cannot shadow ``tests.record_schema`` and friends)."""
