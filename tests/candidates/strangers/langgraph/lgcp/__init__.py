"""A LangGraph control plane for durable-harness's process driver.

Each job version is a LangGraph thread (`<job_id>@v<version>`), checkpointed with
`PostgresSaver` in the run's database; side effects go through a ledger of our own in the same
database, written before each request, so that a node that runs again after a restart reconciles
instead of repeating its write. `serve.py` beside this package starts it.
"""
