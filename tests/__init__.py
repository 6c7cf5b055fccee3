"""The test suite. A regular package: see the note in conftest.py."""
