"""Which scenarios run against a real service (``--service``), and why the others do not.

A scenario that needs the fake's cooperation cannot mean against a real site what it says: how the
site authenticates or looks posts up is the real site's own set-up, not the scenario's to choose
(a busy site's content and its colleague's writes are made on the real site, with the harness's
credentials, and deleted with the run's). A sweep forks the run at every request, which a real site cannot follow. Such a scenario
is *not applicable*, said as such: the command line does not run it and names it with the reason;
a run asked for it directly ends unjudged with the error kind ``not_applicable`` (never unknown,
never a verdict on the candidate). A fault kind or an action that calls into a fake declares it
(``needs_fake``); every built-in one acts at the gate (before the request is sent on, on the site's
answer, on the connection) or through controls the real service has too, so none of them is.

What it deliberately does not do: reach a service (``_upstream_wordpress`` does).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.harness.services._upstream import Upstream, upstreams

__all__ = ["FAKE_ONLY_OPTIONS", "not_applicable", "split_applicable"]

FAKE_ONLY_OPTIONS: Mapping[str, Mapping[str, str]] = {
    "wordpress": {
        "auth_mode": "a real site answers bad credentials as its plugins make it, not as a scenario chooses",
        "operation_key_query": "whether a real site has the lookup plugin is its own set-up",
    },
    "openai": {
        "webhooks_during_steps": "a sessions API by URL delivers its webhooks itself, not through the harness",
    },
}
# Workload parameters that script the sessions fake's agent in a way its ground truth must know of.
_FAKE_AGENT_PARAMS: Mapping[str, Mapping[str, str]] = {
    "article": {"retry_step": "the platform's re-issue of a step is scripted in the sessions fake's agent, and only "
                              "its ground truth can tell it from a step the control plane made redone"},
}


def not_applicable(scenario: Any, real: Mapping[str, Upstream] | None = None) -> str | None:
    """Why ``scenario`` cannot run against the real services (by default, those asked for), or None."""
    real = upstreams() if real is None else real
    if not real:
        return None
    names = ", ".join(f"the real {name}" for name in sorted(real))
    if getattr(scenario, "sweep", None):
        return f"a sweep forks the run at every request, which {names} cannot follow"
    from durable_harness.harness.actions import get_action_kind
    from durable_harness.harness.faults import get_fault_kind

    kinds = [("fault", f.kind, get_fault_kind(f.kind)) for f in getattr(scenario, "faults", ())]
    kinds += [("action", a.kind, get_action_kind(a.kind)) for a in getattr(scenario, "actions", ())]
    for what, name, kind in kinds:
        needed = sorted(set(kind.needs_fake) & set(real))
        if needed:
            return f"the {what} {name!r} acts through the {needed[0]} fake, not at the gate"
    if "openai" in real:
        why = _needs_the_sessions_fake(scenario)
        if why is not None:
            return why
    for name in sorted(real):
        options = (getattr(scenario, "services", None) or {}).get(name) or {}
        for option, why in FAKE_ONLY_OPTIONS.get(name, {}).items():
            if option in options:
                return f"services.{name}.{option}: {why}"
    return None


def split_applicable(scenarios: Sequence[Any], environ: Mapping[str, str] = os.environ) -> tuple[list[Any], dict[str, str]]:
    """The scenarios that apply, and the others by id with the reason."""
    real = upstreams(environ)
    applicable, others = [], {}
    for scenario in scenarios:
        why = not_applicable(scenario, real)
        if why is None:
            applicable.append(scenario)
        else:
            others[str(scenario.id)] = why
    return applicable, others


def _needs_the_sessions_fake(scenario: Any) -> str | None:
    """Why ``scenario`` needs the sessions fake itself (its agent, its truth, its webhooks), or None."""
    from durable_harness.harness.workloads import get_workload

    workload = getattr(getattr(scenario, "workload", None), "kind", None)
    if workload is not None and get_workload(str(workload)).call_truth is None:
        return f"the {workload} workload's ground truth (its sandbox, the tests it ran) is the sessions fake's own"
    params = getattr(getattr(scenario, "workload", None), "params", None) or {}
    for param, why in _FAKE_AGENT_PARAMS.get(str(workload), {}).items():
        if param in params:
            return f"workload.params.{param}: {why}"
    if "webhooks" in (getattr(scenario, "needs", None) or ()):
        return "it needs the webhooks the harness delivers; a sessions API by URL delivers its own"
    triggers = [f.at for f in getattr(scenario, "faults", ())] + [a.at for a in getattr(scenario, "actions", ())]
    if any(t is not None and t.service == "webhooks" for t in triggers):
        return "a fault on the webhooks the harness delivers; a sessions API by URL delivers its own"
    return None
