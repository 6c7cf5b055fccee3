"""``python -m agent_core`` — see :mod:`agent_core.cli.main`."""

from agent_core.cli.main import exit_process, main

exit_process(main())
