"""The ``durable-harness`` command: run, sweep, validate, list, render, merge.

Exit codes (``durable_harness.harness.verdict``): 0 all pass; 1 a safety violation; 2 a liveness failure or an
unknown verdict (fails closed); 3 the run could not be judged: a bad scenario, bad usage, a report
folder that cannot be written, a candidate that cannot be run, an interruption, or an error of the
harness itself. Across several scenarios the most serious wins, in the order 1, 3, 2, 0.

The command never ends in a traceback: an unexpected error is one line on stderr, with the
traceback kept in ``<report>/harness-error.txt``. SIGINT and SIGTERM stop a run between requests;
what finished is reported, and the report says it is partial.

While scenarios run, the terminal shows progress (``_progress``); a command ends with a summary of
the top findings and the path of ``report.html`` (``_cli_output``). ``--shard K/N`` runs a slice
(``_shard``) and ``merge`` puts the slices' reports back together (``_merge``). The arguments are
described in ``_cli_parser``; this module only wires commands to the engine and the reports.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import shlex
import shutil
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import IO, Any

from durable_harness.harness._cli_output import final_lines
from durable_harness.harness._cli_parser import build_parser
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._progress import Progress
from durable_harness.harness._shard import Shard, ShardError, parse_shard, select
from durable_harness.harness.candidate import CandidateSpecError
from durable_harness.harness.isolation._probe import probe_candidate
from durable_harness.harness.verdict import EXIT_MEANING, worst_exit

__all__ = ["main"]

ERROR_FILE = "harness-error.txt"
_ARGV: list[str] = []  # the arguments main() was given, for the report's index


def _check_candidate(spec: str) -> None:
    """The name is checked (the candidate's code is imported in a child), and the settings of its runs.
    The harness's version and commit are read now, before any worker starts: what runs is what was
    loaded, whatever is committed meanwhile."""
    from durable_harness.harness._rundoc import harness_provenance
    from durable_harness.harness._settings import check_settings

    harness_provenance()
    try:
        check_settings(os.environ)
    except ValueError as err:
        raise UsageError(str(err)) from None
    probe_candidate(spec)


def _keep_candidate_db(keep: bool) -> None:
    """``--keep-candidate-db``: the runs copy the candidate's database into the report (``_run``)."""
    from durable_harness.harness._run import KEEP_DB

    if keep:
        os.environ[KEEP_DB] = "1"


def _strict_coverage(strict: bool) -> None:
    """``--strict-coverage``: the runs (and the workers of ``run -j``, which inherit it) read it there."""
    from durable_harness.harness._coverage import STRICT_COVERAGE_ENV

    if strict:
        os.environ[STRICT_COVERAGE_ENV] = "1"


def _candidate_next(candidate: str, spec: str | None) -> None:
    """``--candidate-next``: what a deploy action starts; the runs (and ``run -j``'s workers) read it there."""
    from durable_harness.harness._run import NEXT_ENV, candidate_next

    if spec is None:
        return
    try:
        candidate_next(candidate, {NEXT_ENV: spec})
    except ValueError as err:
        raise UsageError(str(err)) from None
    _check_candidate(spec)
    os.environ[NEXT_ENV] = spec


def _toxiproxy(url: str | None) -> None:
    """``--toxiproxy URL``: the process driver's network faults use a real Toxiproxy there (``_network``)."""
    from durable_harness.harness._network import TOXIPROXY_ENV, toxiproxy_url

    if url is None:
        return
    try:
        toxiproxy_url({TOXIPROXY_ENV: url})
    except HarnessError as err:
        raise UsageError(f"--toxiproxy {url!r}: not a Toxiproxy API address such as http://127.0.0.1:8474") from err
    os.environ[TOXIPROXY_ENV] = url


def _services(given: Sequence[str], keep: bool) -> None:
    """``--service NAME=URL`` (``DH_SERVICE_<NAME>``) and ``--keep`` (``DH_KEEP_UPSTREAM``), checked now."""
    from durable_harness.harness.services._upstream import KEEP_ENV, REAL_SERVICES, upstream, url_variable

    for item in given:
        name, sep, url = item.partition("=")
        if not sep or not name or not url:
            raise UsageError(f"--service {item!r}: give NAME=URL, e.g. wordpress=http://127.0.0.1:8089")
        if name not in REAL_SERVICES:
            raise UsageError(f"--service {item!r}: {name!r} cannot be real (only {', '.join(REAL_SERVICES)})")
        os.environ[url_variable(name)] = url
        try:
            real = upstream(name)
        except ValueError as err:
            raise UsageError(f"--service {item!r}: {err}") from None
        assert real is not None
        from durable_harness.harness.services._upstream_preflight import checked_problems

        problems = checked_problems(real)
        if problems:  # said before anything runs, never a candidate's red
            raise UsageError(f"--service {item!r}: it cannot run the scenarios: {'; '.join(problems)}")
    if keep:
        os.environ[KEEP_ENV] = "1"


class UsageError(Exception):
    """Bad usage: one line, exit 3."""


def main(argv: Sequence[str] | None = None) -> int:
    _ARGV[:] = sys.argv[1:] if argv is None else list(argv)
    args = build_parser({"run": _cmd_run, "sweep": _cmd_sweep, "validate": _cmd_validate, "list": _cmd_list,
                         "render": _cmd_render, "merge": _cmd_merge, "explore": _cmd_explore,
                         "serve-fake": _cmd_serve_fake}).parse_args(argv)
    from durable_harness.harness.scenario import ScenarioError  # after parsing: `--help` stays light

    report: Path | None = getattr(args, "report", None)
    from durable_harness.harness._plugins import PluginError, load_plugins

    try:
        load_plugins()  # a team's own fault kinds, checkers, services, workloads: before any scenario is read
        with _signals_as_interrupts():
            code: int = args.func(args)
        return code
    except (ScenarioError, CandidateSpecError, UsageError, PluginError) as err:
        print(f"durable-harness: error: {err}", file=sys.stderr)
        return 3
    except HarnessError as err:  # before any run could say it (the zygote, say, cannot start): never exit 1
        print(f"durable-harness: error of the harness, not of the candidate: {err.message}", file=sys.stderr)
        return 3
    except BrokenPipeError:  # `durable-harness run | head`: the reader left; the report is written
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 3
    except OSError as err:
        path = f" {err.filename}" if err.filename else ""
        print(f"durable-harness: error: cannot use{path}: {err.strerror or err}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("durable-harness: interrupted before anything was reported", file=sys.stderr)
        return 3
    except Exception as err:
        kept = _keep_traceback(report, err)
        print(f"durable-harness: internal error: {type(err).__name__}: {err} (traceback in {kept})", file=sys.stderr)
        return 3
    finally:
        _release_reports()


def _release_reports() -> None:
    """The report folders this command held are free again (the command is over)."""
    while _LOCKS:
        _LOCKS.pop().close()


def _keep_traceback(report: Path | None, err: BaseException) -> Path:
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    for folder in ([report] if report is not None else []) + [Path(tempfile.gettempdir())]:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / ERROR_FILE
            target.write_text(text, encoding="utf-8")
            return target
        except OSError:
            continue
    return Path("<nowhere: no folder could be written>")


@contextmanager
def _signals_as_interrupts() -> Iterator[None]:
    """SIGTERM behaves as SIGINT does: the run stops and reports what finished (and says so). The
    signal is kept too (``_signals``): an interrupt Python swallowed stops the run at its next step."""
    from durable_harness.harness import _signals

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        _signals.note(signal.Signals(signum).name)
        raise KeyboardInterrupt

    def unraisable(info: Any) -> None:  # an interrupt Python could not raise is kept (_signals), not printed
        if not isinstance(info.exc_value, KeyboardInterrupt):
            before_hook(info)

    _signals.clear()
    before_hook, sys.unraisablehook = sys.unraisablehook, unraisable
    with _signals.handling(on_signal) as installed:  # not in an embedding program's other threads
        before_usr1 = _stacks_on_sigusr1() if installed else None
        try:
            yield
        finally:
            if before_usr1 is not None:
                signal.signal(signal.SIGUSR1, before_usr1)
            sys.unraisablehook = before_hook


def _stacks_on_sigusr1() -> Any:
    """`kill -USR1 <pid>`: every thread's stack on stderr, for a harness that seems stuck; the run goes
    on. Returns the handler it replaced, to be put back (None when there is none to install: no
    SIGUSR1, or a stderr with no file descriptor, as when called from a program; None too when the one
    replaced was not installed from Python and cannot be put back: the dump then stays).

    Not ``faulthandler.register``: its C handler walks the other threads' frames while they run, and
    a thread that starts, ends or returns meanwhile makes it read freed memory (CPython issue 116008:
    the harness died of a segmentation fault in the middle of the dump). Here a Python-level handler
    runs in the main thread between two instructions, with the interpreter's lock held, so no other
    thread moves while the stacks are written; the dump goes straight to the descriptor, past
    ``sys.stderr``'s buffer, which the interrupted code may be in the middle of writing."""
    if not hasattr(signal, "SIGUSR1"):
        return None
    try:
        fd = sys.stderr.fileno()
    except (OSError, ValueError, AttributeError):
        return None

    def dump(_signum: int, _frame: FrameType | None) -> None:
        faulthandler.dump_traceback(file=fd, all_threads=True)

    return signal.signal(signal.SIGUSR1, dump)


def interrupted_by() -> str | None:
    from durable_harness.harness import _signals

    return _signals.pending()


def _paths(given: Sequence[str]) -> list[Path | str]:
    return list(given) if given else [_catalogue()]


def _catalogue() -> Path:
    """The bundled catalogue, relative to the working directory when it lies below it, so that
    reproduce commands stay short and work from a checkout."""
    from durable_harness.harness.scenario import catalogue_dir

    path = catalogue_dir()
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _cmd_explore(args: argparse.Namespace) -> int:
    from durable_harness.harness._cli_explore import cmd_explore

    return cmd_explore(args, UsageError)


def _cmd_serve_fake(args: argparse.Namespace) -> int:
    from durable_harness.harness._serve_fake import serve_fake

    return serve_fake(_paths(args.scenario), seed=args.seed, env_file=args.env_file)


def _cmd_validate(args: argparse.Namespace) -> int:
    from durable_harness.harness.scenario import load_scenarios

    scenarios = load_scenarios(_paths(args.paths))
    for s in scenarios:
        print(f"ok  {s.source}  ({s.id})")
    print(f"{len(scenarios)} scenario file(s) valid")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from durable_harness.harness._listing import listing

    from durable_harness.harness.scenario import load_scenarios

    print(listing(load_scenarios(_paths(args.paths))))
    return 0


LOCK_FILE = ".durable-harness.lock"
_LOCKS: list[IO[str]] = []  # held until this process ends


def _lock_report(folder: Path) -> None:
    """Hold ``folder`` for this run: a second run writing into it would mix two reports (and, once,
    two candidates' databases), so it is refused while this one lives."""
    import fcntl

    handle = open(folder / LOCK_FILE, "a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise UsageError(f"{folder} is being written by another durable-harness run"
                         f"{f' (pid {holder})' if holder.isdigit() else ''}: wait for it to end, or give another "
                         "--report") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    _LOCKS.append(handle)


def _fresh_report(folder: Path) -> None:
    """Make ``folder`` ready for a new report: held by this run (``_lock_report``), and earlier
    outputs of this tool in it removed, so that runs of different candidates or seeds never mix."""
    folder.mkdir(parents=True, exist_ok=True)
    if not os.access(folder, os.W_OK):
        raise OSError(13, "not writable", str(folder))
    _lock_report(folder)
    for child in folder.iterdir():
        if child.is_dir() and (child / "run.json").exists():
            shutil.rmtree(child)
    for name in ("report.json", "summary.md", "junit.xml", "report.html", ERROR_FILE):
        (folder / name).unlink(missing_ok=True)


def _shard(text: str | None) -> Shard | None:
    try:
        return None if text is None else parse_shard(text)
    except ShardError as err:
        raise UsageError(str(err)) from err


def _slice(items: Sequence[Any], key: Callable[[Any], Any], shard: Shard | None, noun: str) -> list[Any]:
    try:
        return list(items) if shard is None else select(items, key, shard, noun)
    except ShardError as err:
        raise UsageError(str(err)) from err


def _allure_dir(folder: Path | None) -> Path | None:
    """Ready ``--allure DIR`` before anything runs (a folder that cannot be written fails now)."""
    if folder is not None:
        from durable_harness.reports import clean_allure_dir

        clean_allure_dir(folder)
    return folder


def _cmd_run(args: argparse.Namespace) -> int:
    from durable_harness.harness._determinism import check_determinism
    from durable_harness.harness._report_index import ReportIndex
    from durable_harness.harness._scenario_run import run_scenario

    shard = _shard(args.shard)
    _keep_candidate_db(args.keep_candidate_db)
    _toxiproxy(args.toxiproxy)
    _strict_coverage(args.strict_coverage)
    _candidate_next(args.candidate, args.candidate_next)
    _services(args.service, args.keep)
    from durable_harness.harness.scenario import ScenarioError, load_scenarios
    from durable_harness.harness.services._applicability import split_applicable
    from durable_harness.harness.services._upstream import upstreams

    scenarios = load_scenarios(_paths(args.scenario))  # all validated before anything runs
    if not scenarios:
        raise ScenarioError("no scenario files found; give --scenario PATH")
    scenarios, not_applicable = split_applicable(scenarios)
    for scenario_id, why in not_applicable.items():
        print(f"not applicable: {scenario_id}: {why}", flush=True)
    if not scenarios:
        raise UsageError(f"none of the {len(not_applicable)} scenarios applies against a real service (above)")
    _check_candidate(args.candidate)
    if "openai" in upstreams() and _kind(args.candidate).name != "process":
        raise UsageError("--service openai=URL: a sessions API by URL answers in real time; serve the control plane "
                         "as a process (--candidate 'cmd:...'), whose run keeps real time")
    if args.check_determinism and not _kind(args.candidate).deterministic:
        raise UsageError(f"--check-determinism needs a deterministic driver: {args.candidate!r} runs on the "
                         f"{_kind(args.candidate).name} driver, in real time, which is not byte-deterministic")
    scenarios = _slice(scenarios, lambda s: (s.id, s.default_seed if args.seed is None else args.seed, args.candidate),
                       shard, "scenarios")
    report: Path = args.report
    _fresh_report(report)
    allure = _allure_dir(args.allure)
    index = ReportIndex(report, args.candidate, probe_candidate(args.candidate).digest, _command(), [s.id for s in scenarios],
                        shard.to_json() if shard else None)
    from durable_harness.harness.services._upstream import upstreams

    index.real_services({name: site.url for name, site in upstreams().items()}, not_applicable)
    docs: list[dict[str, Any]] = []

    def one(scenario: Any) -> dict[str, Any]:
        doc = run_scenario(scenario, args.candidate, args.seed, report / scenario.id)
        return check_determinism(doc, scenario, args.candidate, report / scenario.id) if args.check_determinism else doc

    args.admission = run_admission(args.jobs, args.candidate)
    args.jobs = run_jobs(args.jobs, args.candidate)
    if (args.jobs > 1 or args.admission is not None) and len(scenarios) > 1:
        stopped = _each_parallel(scenarios, args, report, docs, index)
    else:
        stopped = _each(scenarios, lambda s: str(s.id), one, docs, index)
    of = f" (shard {shard.label})" if shard else ""
    return _finish(report, docs, index, stopped, f"{len(docs)} of {len(scenarios)} scenarios{of} ran for "
                   f"{args.candidate}", allure)


def _each(items: Sequence[Any], name: Callable[[Any], str], run: Callable[[Any], dict[str, Any]],
          docs: list[dict[str, Any]], index: Any, quiet_passes: bool = False) -> bool:
    """Run each item, keeping its document and the index; True when a signal stopped the run."""
    from durable_harness.harness._run import RunInterrupted

    progress = Progress(len(items), quiet_passes=quiet_passes)
    try:
        for item in items:
            try:
                progress.start(name(item))
                try:
                    doc = run(item)
                except RunInterrupted as interrupted:  # the run in flight, as far as it got
                    docs.append(interrupted.doc)
                    raise KeyboardInterrupt from None
                docs.append(doc)
                index.completed_one()
                progress.done(doc)
            except KeyboardInterrupt:
                return True
        return False
    finally:
        progress.close()


def _each_parallel(scenarios: Sequence[Any], args: argparse.Namespace, report: Path, docs: list[dict[str, Any]],
                   index: Any) -> bool:
    """``-j N``: the scenarios in worker processes (``_parallel``); the documents in the catalogue's order."""
    from durable_harness.harness._parallel import run_parallel

    progress = Progress(len(scenarios))

    def done(doc: dict[str, Any]) -> None:
        index.completed_one()
        progress.done(doc)

    try:
        found, stopped = run_parallel(scenarios, args.candidate, args.seed, report, args.jobs,
                                      check_determinism=args.check_determinism, done=done,
                                      admission=getattr(args, "admission", None), note=progress.note)
    finally:
        progress.close()
    docs.extend(found)
    return stopped


def _finish(report: Path, docs: list[dict[str, Any]], index: Any, stopped: bool, what: str,
            allure: Path | None = None) -> int:
    for sig in (signal.SIGINT, signal.SIGTERM):  # a second signal must not cost the report
        try:
            signal.signal(sig, signal.SIG_IGN)
        except ValueError:
            pass

    code = 3 if stopped else worst_exit(int(d["exit_code"]) for d in docs)
    index.finish(code, (interrupted_by() or "SIGINT") if stopped else None)
    note = f"INTERRUPTED ({interrupted_by() or 'SIGINT'}): the report is partial; " if stopped else ""
    html = _write_reports(report, docs, index.data, allure) if docs else None
    print("\n".join(final_lines(docs, what, code, EXIT_MEANING[code], html, note)), flush=True)
    return code


def _write_reports(report: Path, docs: Sequence[dict[str, Any]], index: dict[str, Any] | None,
                   allure: Path | None) -> Path:
    """summary.md, junit.xml and report.html (and Allure results); the path of report.html."""
    from durable_harness.reports import HTML_FILE, ReportFiles, write_allure, write_outputs

    write_outputs(report, docs, index)
    if allure is not None:
        write_allure(allure, docs, index, ReportFiles(report))
    return report / HTML_FILE


def _command() -> str:
    """The command as typed (or as given to ``main``), for the report's index."""
    return " ".join(shlex.quote(a) for a in ["durable-harness", *_ARGV])


def _cmd_sweep(args: argparse.Namespace) -> int:
    from durable_harness.harness._report_index import ReportIndex
    from durable_harness.harness._run import RunInterrupted
    from durable_harness.harness._sweep import POINTS, SweepPoint, run_point, sweep_points
    from durable_harness.harness._sweep_fork import applies, forked_sweep
    from durable_harness.harness.scenario import load_scenario

    shard = _shard(args.shard)
    _keep_candidate_db(args.keep_candidate_db)
    _toxiproxy(args.toxiproxy)
    _strict_coverage(args.strict_coverage)
    _candidate_next(args.candidate, args.candidate_next)
    from durable_harness.harness.services._upstream import upstreams

    if upstreams():
        raise UsageError(f"a sweep cannot run against a real service ({', '.join(sorted(upstreams()))}): it forks the "
                         "run at every request, which a real site cannot follow")
    base = load_scenario(args.scenario or _catalogue() / "baseline.yaml")
    _check_candidate(args.candidate)
    report: Path = args.report
    seed = base.default_seed if args.seed is None else args.seed
    point: SweepPoint | None = None
    if args.point:
        k, _, side = args.point.partition(":")
        if not k.isdigit() or int(k) < 1 or side not in POINTS:
            raise UsageError(f"--point {args.point!r} must be K:before or K:after with K >= 1, e.g. 17:after")
        point = SweepPoint(int(k), side, "request " + k)
    _fresh_report(report)
    allure = _allure_dir(args.allure)
    forked: dict[str, dict[str, Any]] | None = None
    if applies(base, args.candidate):  # every point forked from the clean run at its I/O point
        try:
            _clean, runs = forked_sweep(base, args.candidate, seed, None, report, lambda clean, n: clean,
                                        wanted=lambda p: _in_slice(p, point, shard))
        except RunInterrupted:
            index = ReportIndex(report, args.candidate, probe_candidate(args.candidate).digest, _command(), [],
                                shard.to_json() if shard else None)
            return _finish(report, [], index, True, f"crash-point sweep of {base.id} for {args.candidate}: stopped "
                           "before its points were in", allure)
        points = [p for p, _ in runs]
        forked = {p.label: doc for p, doc in runs}
    else:
        points, _clean = sweep_points(base, args.candidate, seed)
    if point is not None:
        if point.k > len(points) // len(POINTS):
            raise UsageError(f"--point {args.point!r}: the clean run of {base.id} makes {len(points) // len(POINTS)} "
                             f"requests, so K must be 1 to {len(points) // len(POINTS)}")
        points = [p for p in points if p.label == point.label]
    points = _slice(points, lambda p: (p.k, p.point), shard, "crash points")
    index = ReportIndex(report, args.candidate, probe_candidate(args.candidate).digest, _command(),
                        [f"{base.id}-crash-{p.k}-{p.point}" for p in points], shard.to_json() if shard else None)
    docs: list[dict[str, Any]] = []
    stopped = _each(points, lambda p: f"{base.id} point {p.label}",
                    lambda p: forked[p.label] if forked is not None else run_point(base, p, args.candidate, seed, report),
                    docs, index, quiet_passes=True)
    of = f" (shard {shard.label})" if shard else ""
    return _finish(report, docs, index, stopped, f"crash-point sweep of {base.id} for {args.candidate}: "
                   f"{len(docs)} of {len(points)} points{of} ran", allure)


def run_jobs(asked: int | None, candidate: str) -> int:
    """How many scenarios ``run`` runs at once: as asked (``-j``), else one per core (for a ``cmd:``
    candidate, one per core to begin with: ``run_admission`` then follows what its runs use)."""
    if asked is not None:
        return asked
    from durable_harness.harness._parallel import default_jobs

    return default_jobs()


BY_USE_CAP = 4  # runs of a cmd: candidate at once, per core, at most (each is a few processes and their memory)


def run_admission(asked: int | None, candidate: str) -> Any:
    """For a candidate whose kind runs by use (``cmd:``) when ``-j`` was not given: the ``Admission``
    that decides how many of its runs go at once; None otherwise (``-j``'s number, fixed)."""
    if asked is not None or _kind(candidate).parallel != "use":
        return None
    from durable_harness.harness._admission import Admission
    from durable_harness.harness._parallel import default_jobs

    return Admission(default_jobs(), BY_USE_CAP * default_jobs())


def _kind(candidate: str) -> Any:
    from durable_harness.harness.drivers import driver_kind

    return driver_kind(candidate)


def _in_slice(p: Any, point: Any, shard: Shard | None) -> bool:
    """Whether crash point ``p`` is the one asked for (``--point``) and in ``--shard``'s slice; the
    slice of the points sorted by (k, side) is known from ``p`` alone: its rank is 2(k-1), +1 before."""
    if point is not None and p.label != point.label:
        return False
    return shard is None or (2 * (p.k - 1) + (p.point == "before")) % shard.count == shard.index - 1


def _one_line(err: BaseException) -> str:
    """A refused document's message (a problem per line) as one line."""
    return " ".join(str(err).split())


def _cmd_render(args: argparse.Namespace) -> int:
    from durable_harness.reports import load_report

    try:
        loaded = load_report(args.report)
    except ValueError as err:  # no runs, an invalid document, or runs that must not be mixed
        raise UsageError(_one_line(err)) from err
    allure = _allure_dir(args.allure)
    try:
        html = _write_reports(args.report, loaded.runs, loaded.index, allure)
    except ValueError as err:
        raise UsageError(_one_line(err)) from err
    print(f"rendered {len(loaded.runs)} run(s) into {args.report / 'summary.md'}, {args.report / 'junit.xml'} "
          f"and {html}" + (f"; Allure results in {allure}" if allure else ""))
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    from durable_harness.harness._merge import MergeError, merge_reports

    report: Path = args.report
    try:
        merged, missing = merge_reports(args.inputs, report, _command(), prepare=_fresh_report)
    except MergeError as err:
        raise UsageError(str(err)) from err
    assert merged.index is not None
    allure = _allure_dir(args.allure)
    html = _write_reports(report, merged.runs, merged.index, allure)
    code = int(merged.index["exit_code"])
    note = ""
    if missing:
        note = f"PARTIAL: shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} not given; "
    elif merged.index["partial"]:
        note = "PARTIAL: a shard's report is partial; "
    what = (f"merged {len(args.inputs)} report folder(s): {len(merged.runs)} of {len(merged.index['scenarios'])} "
            f"scenarios ran for {merged.index['candidate']['spec']}")
    print("\n".join(final_lines(merged.runs, what, code, EXIT_MEANING[code], html, note)), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
