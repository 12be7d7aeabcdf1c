"""While ``run -j N`` waits on its worker processes, a SIGINT or SIGTERM is noted and raised by the
loop between two waits, never where it lands: landing inside the executor's locking, it once left a
lock held and the pool's shutdown waited for ever (the harness did not stop on Ctrl-C)."""

from __future__ import annotations

import os
import signal

import pytest

from durable_harness.harness import _signals
from durable_harness.harness._parallel import _noted


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_pool_runs_is_noted_not_raised_where_it_lands(sig: signal.Signals) -> None:
    _signals.clear()
    before = signal.getsignal(sig)
    try:
        with _signals.handling(_noted) as installed:  # as run_parallel does while its pool runs
            os.kill(os.getpid(), sig)  # delivered before os.kill returns: no KeyboardInterrupt here
            assert installed and _signals.pending() == sig.name
            with pytest.raises(KeyboardInterrupt):
                _signals.raise_if_pending()  # what the loop does between two waits
    finally:
        _signals.clear()
    assert signal.getsignal(sig) is before
