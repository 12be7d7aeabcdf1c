"""``wordpress_request_budget`` (liveness): the job cost more WordPress requests than the team's
budget (``DH_WORDPRESS_BUDGET``, default 200 a run). A control plane that polls the site in a loop,
or retries without backing off, is correct and still too dear to run; the witness is the first
request beyond the budget."""

from __future__ import annotations

import os

from durable_harness.harness.checkers import CheckInput, Finding, checker, failed, passed, witness


@checker("wordpress_request_budget", "liveness")
def check(inp: CheckInput) -> Finding:
    budget = int(os.environ.get("DH_WORDPRESS_BUDGET") or 200)
    sent = [e for e in inp.history.of_type("invoke") if e.data.get("service") == "wordpress"
            and str(e.process).startswith("worker-")]
    if len(sent) <= budget:
        return passed(f"{len(sent)} WordPress requests, within the budget of {budget}", len(sent))
    first = sent[budget]
    return failed(len(sent) - budget, f"{len(sent)} WordPress requests, {len(sent) - budget} beyond the budget of {budget}",
                  [witness(first, f"request {budget + 1}: {first.data.get('method')} wordpress{first.data.get('route')}")])
