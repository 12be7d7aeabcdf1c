"""Isolation: what keeps a Python candidate out of the harness's memory. The zygote it is forked
from (warmed once: the SDK, the libraries named to it), the child's side of an instance, the pipe
between them (its message kinds named once), the probe that imports a candidate in a child before
any run, and the SDK's clocks on the run's time."""
