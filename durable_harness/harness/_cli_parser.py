"""The ``durable-harness`` command line's arguments: every sub-command, option and help text.

A usage error is exit 3 (exit 2 means a liveness failure here), and a seed is checked as it is
parsed. This module only describes arguments; it does not run anything (``cli`` does) and parses
no shard spec (``_shard`` does, so that a bad one is one line like every other usage error).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from durable_harness.harness._cli_explore import add_explore_parser
from durable_harness.harness._seeds import MAX_SEED

__all__ = ["build_parser"]

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is exit 3 (2 means a liveness failure here)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(3, f"{self.prog}: error: {message}\n")


def _jobs(text: str) -> int:
    from durable_harness.harness._parallel import default_jobs

    if text == "auto":
        return default_jobs()
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of jobs (1 or more, or auto)") from None
    if not 1 <= jobs <= 256:
        raise argparse.ArgumentTypeError(f"{jobs} jobs: give 1 to 256, or auto")
    return jobs


def _seed(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer (a seed is 0 to 2**64-1)") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{text} is out of range (a seed is 0 to 2**64-1)")
    return value


_SHARD_HELP = ("run slice K of N (e.g. 2/4): a deterministic share of what the command would run, for a CI "
               "matrix; put the shards back together with `durable-harness merge`")
_KEEP_DB_HELP = ("copy the candidate's database into each scenario's report folder (for debugging; it is kept "
                 "outside the report otherwise, and it may hold what the candidate stored, secrets included)")
_NEXT_HELP = ("the version a scenario's deploy action starts (a deploy in the middle of a job), run by the same "
              "driver as --candidate (default: --candidate itself, restarted as a deploy)")
_STRICT_HELP = ("a fault or action the candidate's design never met (not reached, not exercised) makes the scenario "
                "unknown, exit 2 (default: it is coverage, shown in the report); DH_STRICT_COVERAGE=1 does the same")
_TOXIPROXY_HELP = ("a real Toxiproxy server's API (http://HOST:PORT) for the proxies of network faults (toxic); "
                   "default: the embedded one")
_SERVICE_HELP = ("NAME=URL: a real service behind the gate in place of the fake (wordpress=http://HOST:PORT); the "
                 "harness's credentials come from the environment (DH_WORDPRESS_USER, DH_WORDPRESS_APP_PASSWORD); "
                 "scenarios that need the fake are not run, and say why")
_KEEP_HELP = "leave what the runs created on a real service (--service) for inspection (default: deleted after each run)"
_ALLURE_HELP = "also write Allure results into DIR (emptied of earlier Allure results first); see `allure serve DIR`"


def build_parser(handlers: Mapping[str, Handler]) -> argparse.ArgumentParser:
    """The parser; each sub-command calls ``handlers[name]`` with its namespace."""
    p = _Parser(prog="durable-harness", description="Fault-injection acceptance tests for agent control planes.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run scenarios against a candidate and write a report")
    run.add_argument("--candidate", default="reference", help="a registered name (reference, mutant:NAME) or package.module:factory")
    run.add_argument("--scenario", action="append", default=[], metavar="PATH",
                     help="a scenario file or directory, or the id of a bundled scenario (repeatable; default: the "
                          "bundled catalogue)")
    run.add_argument("--seed", type=_seed, default=None, help="root seed, 0 to 2**64-1 (default: each scenario's own, derived from its id)")
    run.add_argument("--report", type=Path, default=Path("harness-report"), metavar="DIR", help="where run.json, history and the reports go (default: ./harness-report)")
    run.add_argument("--check-determinism", action="store_true",
                     help="run each scenario twice with the same seed and fail (exit 2) if the histories differ")
    run.add_argument("--shard", default=None, metavar="K/N", help=_SHARD_HELP)
    run.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                     help="run N scenarios at once, each in a worker process (auto: one per core; 1: one after the "
                          "other in this process; default: one per core for a Python candidate, and for a cmd: "
                          "candidate as many as the machine holds while they mostly wait, measured as they run and "
                          "shown on the progress line); the report is the same")
    run.add_argument("--allure", type=Path, default=None, metavar="DIR", help=_ALLURE_HELP)
    run.add_argument("--keep-candidate-db", action="store_true", help=_KEEP_DB_HELP)
    run.add_argument("--toxiproxy", default=None, metavar="URL", help=_TOXIPROXY_HELP)
    run.add_argument("--strict-coverage", action="store_true", help=_STRICT_HELP)
    run.add_argument("--candidate-next", default=None, metavar="SPEC", help=_NEXT_HELP)
    run.add_argument("--service", action="append", default=[], metavar="NAME=URL", help=_SERVICE_HELP)
    run.add_argument("--keep", action="store_true", help=_KEEP_HELP)
    run.set_defaults(func=handlers["run"])

    swp = sub.add_parser("sweep", help="crash the candidate at every I/O point of a scenario (one run per point)")
    swp.add_argument("--candidate", default="reference", help="as for run (default: reference)")
    swp.add_argument("--scenario", default=None, metavar="PATH", help="the base scenario (default: the catalogue's baseline)")
    swp.add_argument("--seed", type=_seed, default=None, help="root seed (default: the scenario's own)")
    swp.add_argument("--point", default=None, metavar="K:SIDE", help="run one point only, e.g. 17:after (as printed by a failure)")
    swp.add_argument("--report", type=Path, default=Path("harness-report") / "sweep", metavar="DIR")
    swp.add_argument("--shard", default=None, metavar="K/N", help=_SHARD_HELP.replace("what the command", "the points it"))
    swp.add_argument("--allure", type=Path, default=None, metavar="DIR", help=_ALLURE_HELP)
    swp.add_argument("--keep-candidate-db", action="store_true", help=_KEEP_DB_HELP)
    swp.add_argument("--toxiproxy", default=None, metavar="URL", help=_TOXIPROXY_HELP)
    swp.add_argument("--strict-coverage", action="store_true", help=_STRICT_HELP)
    swp.add_argument("--candidate-next", default=None, metavar="SPEC", help=_NEXT_HELP)
    swp.set_defaults(func=handlers["sweep"])

    val = sub.add_parser("validate", help="check scenario files against the schema")
    val.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: the bundled catalogue)")
    val.set_defaults(func=handlers["validate"])

    lst = sub.add_parser("list", help="list scenarios, candidates, workloads, services, fault kinds and checkers")
    lst.add_argument("paths", nargs="*", metavar="PATH")
    lst.set_defaults(func=handlers["list"])

    ren = sub.add_parser("render", help="rebuild summary.md, junit.xml and report.html from a report folder, without rerunning")
    ren.add_argument("report", type=Path, metavar="DIR")
    ren.add_argument("--allure", type=Path, default=None, metavar="DIR", help=_ALLURE_HELP)
    ren.set_defaults(func=handlers["render"])

    mrg = sub.add_parser("merge", help="merge the report folders of shards (--shard K/N) into one report")
    mrg.add_argument("inputs", nargs="+", type=Path, metavar="DIR", help="the shards' report folders")
    mrg.add_argument("--report", type=Path, default=Path("harness-report"), metavar="DIR",
                     help="where the merged report goes (default: ./harness-report); not one of the shards")
    mrg.add_argument("--allure", type=Path, default=None, metavar="DIR", help=_ALLURE_HELP)
    mrg.set_defaults(func=handlers["merge"])

    fake = sub.add_parser("serve-fake", help="serve a fake service of a scenario's world on loopback, until stopped")
    fake.add_argument("service", choices=("openai",), help="the service: openai (the Agents sessions API)")
    fake.add_argument("--scenario", type=Path, action="append", default=None, metavar="PATH",
                      help="a scenario file or folder whose jobs' agents it scripts (repeatable; default: the "
                           "bundled catalogue); their faults and people are left out")
    fake.add_argument("--seed", type=_seed, default=0, help="the world's seed (default: 0)")
    fake.add_argument("--env-file", type=Path, default=Path("fake-openai.env"), metavar="FILE",
                      help="where its base URL, key and webhook secret go, mode 0600 (default: ./fake-openai.env)")
    fake.set_defaults(func=handlers["serve-fake"])

    add_explore_parser(sub, handlers["explore"], _seed)
    return p
