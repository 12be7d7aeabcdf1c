"""The safeguards the design can be built without, for the one-bug variant (``create_buggy``).

The correct control plane has every safeguard on. The buggy variant turns exactly one off:
``read_back_after_restart``. With it off, an outbox row found ``SENT`` — a request that left
while an earlier instance of the control plane (crashed, or another worker that died) was waiting
for its answer — is taken as never sent and sent again, without reading the world back first. An
``UNKNOWN`` row (an outcome this instance saw go missing) is still read back: the team remembered
lost responses and forgot crashes, a plausible slip in an outbox design, where "SENT" looks like
"on its way, nothing came back" until one remembers that the process that knew died.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Safeguards:
    """Switches of the design's safeguards (all on in the correct control plane)."""

    read_back_after_restart: bool = True


CORRECT = Safeguards()
WITHOUT_READ_BACK_AFTER_RESTART = Safeguards(read_back_after_restart=False)
