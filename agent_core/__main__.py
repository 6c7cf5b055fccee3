"""``python -m agent_core`` — see :mod:`agent_core.cli`."""

from agent_core.cli import exit_process, main

exit_process(main())
