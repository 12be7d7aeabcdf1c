"""report.html in a real browser: headless Chromium opens it from a file, with no network.

A failing mutant's report must show the matrix, a finding and a drawn timeline; following a
witness link must focus its entry; the filter and the copy button must work; and the console must
stay free of errors. The screenshot is kept (its path is printed at the end of the session). A
synthetic history of 10,000 entries over eight processes must draw and zoom quickly.

Chromium is Debian's ``chromium`` package; ``.ci/run`` installs it. Without it these tests are
skipped, unless ``DH_REQUIRE_CHROMIUM`` is set (as CI sets it), when they fail. The first is
``make test``'s (a bare ``pytest`` leaves it out: it is an end-to-end run), the second is slow.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from _browser import Browser, executable
from _histories import synthetic_history, write_folder
from _run_docs import build_index, build_run, failing
from durable_harness.harness.cli import main
from durable_harness.reports import load_report, write_outputs

SCENARIOS = Path(__file__).parents[2] / "durable_harness" / "scenarios"


@pytest.fixture(scope="module")
def browser() -> Any:
    if executable() is None:
        if os.environ.get("DH_REQUIRE_CHROMIUM"):
            pytest.fail("DH_REQUIRE_CHROMIUM is set but there is no chromium on PATH (apt-get install -y chromium)")
        pytest.skip("no chromium on PATH; install Debian's chromium package to run the browser tests")
    with Browser(width=1400, height=1000) as b:
        yield b


@pytest.fixture(scope="module")
def failing_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    report = tmp_path_factory.mktemp("mutant") / "report"
    code = main(["run", "--candidate", "mutant:blind-retry", "--report", str(report),
                 *(arg for name in ("baseline", "lost-draft-response", "lost-media-response-2")
                   for arg in ("--scenario", str(SCENARIOS / f"{name}.yaml")))])
    assert code == 1
    return report


@pytest.mark.e2e
def test_a_failing_mutant_report_renders_without_a_console_error(
        browser: Browser, failing_report: Path, tmp_path_factory: pytest.TempPathFactory,
        record_property: Any) -> None:
    browser.open((failing_report / "report.html").as_uri())
    assert browser.console_errors() == []
    assert browser.evaluate("document.querySelectorAll('table.matrix tr.row').length") == 3
    assert browser.evaluate("document.querySelectorAll('article.finding').length") >= 2
    assert "duplicate_drafts" in browser.evaluate("document.querySelector('#findings').textContent")
    drawn = browser.evaluate("Array.from(document.querySelectorAll('.tl-mount[data-drawn]'), m => +m.dataset.drawn)")
    assert drawn and min(drawn) > 0, drawn  # the two failing runs are open, their timelines drawn
    ink = browser.evaluate("""(() => { const c = document.querySelector('.tl-mount canvas');
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 0; i < px.length; i += 4) if (px[i] < 200 || px[i + 1] < 200) n++; return n; })()""")
    assert ink > 500, "the timeline canvas is blank"

    shots = tmp_path_factory.getbasetemp() / "report-screenshots"
    shots.mkdir(exist_ok=True)
    shot = browser.screenshot(shots / "failing-mutant-report.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    record_property("screenshot", str(shot))
    if os.environ.get("DH_ARTIFACTS"):
        shutil.copy(shot, Path(os.environ["DH_ARTIFACTS"]) / shot.name)

    # A witness link opens its timeline on the entry it names.
    entry = browser.evaluate("""(() => { const a = document.querySelector('#findings a.wlink');
        a.click(); return a.dataset.entry; })()""")
    focused = browser.evaluate("document.querySelector('figure.timeline.focus .tl-detail').textContent")
    assert f"#{entry} " in focused, focused
    # The filter narrows the matrix and the scenarios; the copy button copies or says how.
    shown = browser.evaluate("""(() => { const s = document.getElementById('f-counter'); s.value = 'duplicate_media';
        s.dispatchEvent(new Event('input'));
        return Array.from(document.querySelectorAll('table.matrix tr.row')).filter(r => !r.hidden).length; })()""")
    assert shown == 1
    assert browser.evaluate("document.getElementById('f-count').textContent") == "showing 1 of 3 scenarios"
    browser.evaluate("document.querySelector('button.copy').click()")
    assert browser.evaluate("new Promise(r => setTimeout(() => r(document.querySelector('button.copy').textContent), 50))") \
        in ("copied", "select it and copy")
    assert browser.console_errors() == []


@pytest.mark.slow  # `make test` opens the failing report; this one, `make test-slow`
def test_a_timeline_of_10000_entries_draws_and_zooms_quickly(browser: Browser, tmp_path: Path) -> None:
    run = failing(build_run("long"))
    run["history"]["entries"] = 10_000
    for w in run["checkers"][0]["witnesses"]:
        w["index"] = 9_001
    history = synthetic_history(10_000)
    write_folder(tmp_path, [run], build_index(["long"]), {"long": history})
    loaded = load_report(tmp_path)
    write_outputs(tmp_path, loaded.runs, loaded.index)
    html = tmp_path / "report.html"
    assert html.stat().st_size < 5_000_000
    browser.open(html.as_uri())
    timing = browser.evaluate("""(() => { const tl = dhReport.timeline('tl-0-0'); const t0 = performance.now();
        tl.fit(); for (let i = 0; i < 6; i++) tl.zoom(0.5); tl.toggleAxis(); tl.toggleAxis(); tl.fit();
        return {ms: performance.now() - t0, lanes: tl.d.lanes, listed: tl.list.children.length}; })()""")
    assert timing["ms"] < 1500, timing
    assert timing["lanes"] == list(dict.fromkeys(e["process"] for e in history))  # in order of first appearance
    assert {"user", "reviewer", "operator", "nemesis"} <= set(timing["lanes"])
    assert timing["listed"] == 251  # 250 entries and "... more entries in view: zoom in to list them"
    focused = browser.evaluate("""(() => { const tl = dhReport.timeline('tl-0-0'); tl.focusEntry(9001);
        return [tl.list.querySelectorAll('li[data-p]').length, tl.detail.textContent]; })()""")
    assert focused[0] <= 64 and "witness · #9001 " in focused[1], focused
    assert browser.console_errors() == []
