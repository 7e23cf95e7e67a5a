"""gpusweep trial helper: read a trial's params, report its metrics.

gpusweep runs every trial as a command in its own process and tells it where
things are through environment variables (see docs/protocol.md):

    GPUSWEEP_TRIAL_ID   the trial's id, e.g. "7"
    GPUSWEEP_TRIAL_DIR  the trial's directory (also the working directory)
    GPUSWEEP_PARAMS     path of params.json, a JSON object of the trial's params
    GPUSWEEP_METRICS    path of metrics.jsonl, where the trial appends results
    GPUSWEEP_ATTEMPT    1, then 2, 3, ... when the trial runs again after an
                        interruption (its directory and checkpoint are kept)
    GPUSWEEP_METRIC     the experiment's objective metric, e.g. "val_acc"
    GPUSWEEP_BUDGET     with a scheduler that gives budgets: this job's budget
    GPUSWEEP_RUNG       ... and its rung (0, 1, ...)
    GPUSWEEP_VERDICTS   with an iterative scheduler (asha, hyperband, median):
                        where gpusweep answers each report (verdicts.jsonl)
    GPUSWEEP_RESOURCE   ... the report key it judges at (e.g. "epoch")
    GPUSWEEP_STOP_POINTS ... the resource values at which the trial may be
                        stopped ("1,3,9"; empty: at any report)
    GPUSWEEP_FOLD       with cv: {folds: k}: this trial's fold, 0..k-1
    GPUSWEEP_FOLDS      ... and k
    GPUSWEEP_CONFIGURATION ... and the configuration the fold belongs to
    GPUSWEEP_CHECKPOINT_DIR with scheduler: {type: pbt}: where this trial's
                        checkpoint lives; gpusweep copied the parent's there
    GPUSWEEP_PARENT_TRIAL, GPUSWEEP_PARENT_DIR ... the trial it continues from
    GPUSWEEP_PBT_MEMBER, GPUSWEEP_PBT_SEGMENT ... which member and segment it is

This module is a thin convenience over that protocol; a trial does not need it
(appending a JSON line to $GPUSWEEP_METRICS from any language is enough).

Typical use::

    import gpusweep
    p = gpusweep.params()                  # {} when run outside gpusweep
    lr = p.get("lr", 0.01)
    for epoch in range(10):
        ...
        gpusweep.report(step=epoch, val_acc=acc, val_loss=loss)

Early stopping: at a point where the scheduler may stop the trial (a rung),
report() waits for its verdict and returns True when the trial should stop,
like Optuna's should_prune(), so a pruned trial never trains past its rung.
gpusweep also sends SIGTERM to a stopped trial's process group (SIGKILL after
`kill_grace`, default 10 s), which ends a trial that does not ask. To save a
checkpoint and exit cleanly instead::

    gpusweep.handle_stop()                 # SIGTERM now only sets a flag
    for epoch in range(start, epochs):
        ...
        should_stop = gpusweep.report(epoch=epoch, val_acc=acc)
        torch.save(state, gpusweep.trial_dir() / "checkpoint.pt")
        if should_stop:                    # pruned, or asked to stop (Ctrl-C, timeout)
            break

A trial interrupted (Ctrl-C, gpusweep killed) runs again in the same directory
on the next `gpusweep run`; attempt() > 1 says so. Load the checkpoint there
and continue from the saved epoch.

Budgeted trials (scheduler successive_halving, or asha/hyperband when the
command reads {{budget}}) run again in the same directory with a larger
budget when promoted: load the checkpoint there and train up to budget().

Population-based training (scheduler: {type: pbt}): every segment of a member
is a trial that starts from the checkpoint gpusweep copied into
checkpoint_dir() (its member's previous segment, or a better member's after an
exploit), trains up to budget() and saves::

    state = gpusweep.restore_checkpoint()  # None for a member's first segment
    model.load_state_dict(torch.load(state / "model.pt")) if state else None
    ...
    gpusweep.save_checkpoint(write=lambda d: torch.save(model.state_dict(), d / "model.pt"))
    gpusweep.report(epoch=epoch, val_acc=acc)

save_checkpoint() writes into a fresh directory and renames it into place with
its marker, so gpusweep only ever copies a complete checkpoint to another
member, and never one from a member that did not save.

Outside gpusweep (GPUSWEEP_METRICS unset) `report` prints the JSON line to
stdout instead, so the same script runs standalone.

Standard library only; Python >= 3.8.
"""

import json
import math
import os
import pathlib
import signal
import sys
import time

__all__ = ["params", "report", "trial_dir", "trial_id", "in_gpusweep", "budget", "rung",
           "attempt", "fold", "folds", "handle_stop", "stop_requested", "should_stop",
           "checkpoint_dir", "save_checkpoint", "restore_checkpoint"]

ENV_TRIAL_ID = "GPUSWEEP_TRIAL_ID"
ENV_TRIAL_DIR = "GPUSWEEP_TRIAL_DIR"
ENV_PARAMS = "GPUSWEEP_PARAMS"
ENV_METRICS = "GPUSWEEP_METRICS"
ENV_BUDGET = "GPUSWEEP_BUDGET"
ENV_RUNG = "GPUSWEEP_RUNG"
ENV_ATTEMPT = "GPUSWEEP_ATTEMPT"
ENV_METRIC = "GPUSWEEP_METRIC"
ENV_VERDICTS = "GPUSWEEP_VERDICTS"
ENV_RESOURCE = "GPUSWEEP_RESOURCE"
ENV_STOP_POINTS = "GPUSWEEP_STOP_POINTS"
ENV_FOLD = "GPUSWEEP_FOLD"
ENV_FOLDS = "GPUSWEEP_FOLDS"
ENV_CHECKPOINT_DIR = "GPUSWEEP_CHECKPOINT_DIR"
CHECKPOINT_MARKER = "gpusweep-checkpoint.json"  # written last: the checkpoint is whole
CHECKPOINT_STATE = "state.json"  # save_checkpoint(state=...)'s file

# How long report() waits for gpusweep's verdict before it carries on as if told
# to continue (gpusweep answers within a fraction of a second; it may be gone).
VERDICT_TIMEOUT = 60.0

_stop_signal = None  # the signal number handle_stop() caught, if any
_stopped_by_verdict = False  # a verdict said "stop"
_verdicts_read = 0  # bytes of verdicts.jsonl already read
_verdict_answers = []  # (resource, verdict) pairs read so far
_passed_points = -math.inf  # resource of the last report that waited


def in_gpusweep():
    """Returns True when this process is a trial started by gpusweep.

    Decided by the presence of GPUSWEEP_METRICS, the one variable a trial
    needs to report.
    """
    return bool(os.environ.get(ENV_METRICS))


def params():
    """Returns the trial's params: the JSON object in $GPUSWEEP_PARAMS, as a dict.

    Outside gpusweep (GPUSWEEP_PARAMS unset or empty) returns {} so a script
    can fall back to its own defaults, e.g. ``params().get("lr", 0.01)``.

    Raises:
        OSError: the file named by GPUSWEEP_PARAMS cannot be read.
        ValueError: it is not valid JSON, or not a JSON object.
    """
    path = os.environ.get(ENV_PARAMS)
    if not path:
        return {}
    with open(path, "r", encoding="utf-8") as f:
        value = json.load(f)
    if not isinstance(value, dict):
        raise ValueError(
            "%s (%s) holds a JSON %s, expected an object"
            % (ENV_PARAMS, path, type(value).__name__))
    return value


def trial_dir():
    """Returns the trial's directory as a pathlib.Path.

    That is $GPUSWEEP_TRIAL_DIR, e.g. <experiment>/trials/0007; outside
    gpusweep, the current working directory.
    """
    path = os.environ.get(ENV_TRIAL_DIR)
    return pathlib.Path(path) if path else pathlib.Path.cwd()


def trial_id():
    """Returns the trial's id as an int (from $GPUSWEEP_TRIAL_ID), or None outside gpusweep.

    Raises:
        ValueError: GPUSWEEP_TRIAL_ID is set but is not an integer.
    """
    value = os.environ.get(ENV_TRIAL_ID)
    return int(value) if value else None


def checkpoint_dir():
    """Returns where this trial's checkpoint lives, as a pathlib.Path.

    $GPUSWEEP_CHECKPOINT_DIR under population-based training (the trial
    directory's checkpoint/); otherwise trial_dir() / "checkpoint".
    """
    path = os.environ.get(ENV_CHECKPOINT_DIR)
    return pathlib.Path(path) if path else trial_dir() / "checkpoint"


def restore_checkpoint():
    """Returns the checkpoint directory to continue from, or None.

    Under population-based training gpusweep copied the parent trial's
    checkpoint (the member's previous segment, or the donor's after an
    exploit) into checkpoint_dir() before this trial started; a member's
    first segment has none. A checkpoint counts only when its marker is there
    (save_checkpoint writes it last). With save_checkpoint(state=...), the
    saved object is json.load(open(dir / "state.json")).
    """
    path = checkpoint_dir()
    return path if (path / CHECKPOINT_MARKER).is_file() else None


def save_checkpoint(state=None, *, write=None, resource=None):
    """Saves this trial's checkpoint atomically into checkpoint_dir().

    Args:
        state: a JSON-serialisable object, saved as state.json; or None.
        write: a function called with a fresh directory (a pathlib.Path) that
            writes the checkpoint's files into it, e.g.
            lambda d: torch.save(model.state_dict(), d / "model.pt").
        resource: where training is (e.g. the epoch); budget() by default.

    The files go into a new directory beside checkpoint_dir(), then the
    marker {"trial": <id>, "resource": ...} is written, then the directory is
    renamed into place (the old one removed), so a reader sees the old
    checkpoint or the new one, never half of one. gpusweep lets another
    member copy it only when the marker names this trial.

    Returns the checkpoint directory.
    """
    final = checkpoint_dir()
    final.parent.mkdir(parents=True, exist_ok=True)
    fresh = final.parent / (".%s.saving-%d" % (final.name, os.getpid()))
    old = final.parent / (".%s.old-%d" % (final.name, os.getpid()))
    for leftover in (fresh, old):
        _remove_tree(leftover)
    fresh.mkdir()
    if state is not None:
        with open(fresh / CHECKPOINT_STATE, "w", encoding="utf-8") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
    if write is not None:
        write(fresh)
    marker = {"trial": trial_id(), "resource": budget() if resource is None else resource}
    with open(fresh / CHECKPOINT_MARKER, "w", encoding="utf-8") as f:
        json.dump(marker, f)
        f.flush()
        os.fsync(f.fileno())
    if final.exists():
        os.rename(final, old)
    os.rename(fresh, final)
    _remove_tree(old)
    return final


def _remove_tree(path):
    import shutil
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def budget():
    """Returns this job's budget from $GPUSWEEP_BUDGET (int when whole), or None.

    Set when the experiment's scheduler gives budgets (the same value as
    {{budget}} in the command): e.g. the number of epochs to train up to.

    Raises:
        ValueError: GPUSWEEP_BUDGET is set but is not a number.
    """
    value = os.environ.get(ENV_BUDGET)
    if not value:
        return None
    number = float(value)
    return int(number) if number.is_integer() else number


def rung():
    """Returns this job's rung (0, 1, ...) from $GPUSWEEP_RUNG, or None."""
    value = os.environ.get(ENV_RUNG)
    return int(value) if value else None


def attempt():
    """Returns this run's attempt number: 1, then 2, 3, ... on each rerun.

    A trial that was interrupted (Ctrl-C, gpusweep killed or stopped) runs
    again on the next `gpusweep run` of the same config under the same number,
    params and directory; files it saved there (a checkpoint) are still there.
    1 outside gpusweep.
    """
    value = os.environ.get(ENV_ATTEMPT)
    return int(value) if value else 1


def fold():
    """Returns this trial's cross-validation fold (0..folds()-1), or None.

    Set when the experiment has `cv: {folds: k}`: every configuration runs as
    k trials with the same params, fold 0, 1, ..., k-1; train on the other
    folds and report the metric on this one. None without cv (and outside
    gpusweep), so a script can fall back to its usual split.

    Raises:
        ValueError: GPUSWEEP_FOLD is set but is not an integer.
    """
    value = os.environ.get(ENV_FOLD)
    return int(value) if value else None


def folds():
    """Returns the number of cross-validation folds k, or None without cv.

    Raises:
        ValueError: GPUSWEEP_FOLDS is set but is not an integer.
    """
    value = os.environ.get(ENV_FOLDS)
    return int(value) if value else None


def handle_stop(signals=(signal.SIGTERM,)):
    """Makes SIGTERM (gpusweep's stop request) set a flag instead of ending the process.

    gpusweep sends SIGTERM when a scheduler prunes the trial, on a timeout and
    on Ctrl-C, then SIGKILL after the experiment's kill_grace. Poll
    stop_requested() between steps, save a checkpoint and exit within the
    grace period. Call from the main thread.
    """
    def _note(signum, _frame):
        global _stop_signal
        _stop_signal = signum

    for signum in signals:
        signal.signal(signum, _note)


def stop_requested():
    """True once a signal installed by handle_stop() has arrived."""
    return _stop_signal is not None


def should_stop():
    """True once a verdict said "stop" or a handle_stop() signal arrived."""
    return _stopped_by_verdict or stop_requested()


def report(metrics=None, /, *, step=None, wait=None, timeout=None, **kwargs):
    """Reports metrics: appends one JSON object line to $GPUSWEEP_METRICS.

    Call it as ``report(step=3, val_acc=0.91)`` or, for keys that are not
    Python identifiers, ``report({"val/acc": 0.91}, step=3)`` (keyword
    arguments win over the mapping on a clash). ``step`` (written first on the
    line when given), or else an ``epoch`` or ``iteration`` key, is taken by
    gpusweep as the step of the line; a scheduler reads its `resource` key
    (``epoch`` by default: set ``resource: step`` to use ``step``). The
    experiment's objective is the last reported value of its metric.

    Values may be anything JSON can hold (numbers, strings, bools, None,
    lists, dicts). Objects with an ``item()`` method (numpy scalars, 0-d
    torch tensors) are converted with it.

    The line is written with one write() on a file opened for appending, so
    lines from concurrent writers do not interleave, and it is visible to
    gpusweep as soon as report() returns (no fsync: a crash of the machine,
    not of the trial, may lose the last lines).

    Outside gpusweep (GPUSWEEP_METRICS unset) the line is printed to stdout.

    Waiting for the verdict: with an iterative scheduler (GPUSWEEP_VERDICTS
    set), a line holding the scheduler's resource and the metric as numbers,
    at a point where the trial may be stopped (GPUSWEEP_STOP_POINTS), makes
    report() wait until gpusweep has judged it (a fraction of a second), so
    a pruned trial does not train another step. ``wait=False`` never waits,
    ``wait=True`` waits at every judged line; ``timeout`` (seconds, default
    VERDICT_TIMEOUT) bounds the wait: when gpusweep does not answer in time
    the trial continues, with a warning on stderr.

    Returns:
        True when the trial should stop: the scheduler's verdict was "stop"
        (the trial was pruned) or a handle_stop() signal arrived; then save
        what you need and exit. False otherwise (always outside gpusweep).

    Raises:
        ValueError: no metrics given, or a value is NaN or infinite (JSON has
            no such numbers; report a finite value or None instead), including
            inside lists and dicts. Nothing is written then.
        TypeError: a key is not a string, or a value cannot be turned into JSON.
        OSError: the metrics file cannot be written.
    """
    line_obj = {} if step is None else {"step": step}
    if metrics is not None:
        line_obj.update(metrics)
    line_obj.update(kwargs)
    if step is not None:
        line_obj["step"] = step  # the keyword wins over a "step" in the mapping
    if not line_obj:
        raise ValueError("report() needs at least one metric")
    for key in line_obj:
        if not isinstance(key, str):
            raise TypeError("metric names must be strings, got %r" % (key,))
    line_obj = {key: _to_json_value(value, key) for key, value in line_obj.items()}
    text = json.dumps(line_obj, allow_nan=False, separators=(",", ":"))

    path = os.environ.get(ENV_METRICS)
    if not path:
        print(text, flush=True)
        return False
    _append_line(path, text)
    at = _judged_resource(line_obj)
    if at is not None and _should_wait(at, wait):
        _await_verdict(at, VERDICT_TIMEOUT if timeout is None else timeout)
    return should_stop()


def _judged_resource(line_obj):
    """The scheduler's resource value in a line it judges, else None.

    gpusweep judges (and answers) a line only when it holds both the resource
    key and the metric as numbers.
    """
    if not os.environ.get(ENV_VERDICTS):
        return None
    resource = line_obj.get(os.environ.get(ENV_RESOURCE, ""))
    value = line_obj.get(os.environ.get(ENV_METRIC, ""))
    for number in (resource, value):
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            return None
    return resource


def _should_wait(at, wait):
    """Whether a judged report at resource `at` waits: at (or past) a stop point."""
    global _passed_points
    if wait is not None:
        return bool(wait)
    text = os.environ.get(ENV_STOP_POINTS, "").strip()
    points = [float(p) for p in text.split(",") if p.strip()]
    # Rungs are reached when at >= rung (up to rounding), as the scheduler decides.
    crossed = (not points or
               any(_passed_points < p * (1 - 1e-9) <= at for p in points))
    _passed_points = max(_passed_points, at)
    return crossed


def _await_verdict(at, timeout):
    """Polls $GPUSWEEP_VERDICTS until it answers a report at `at` (or says stop)."""
    global _stopped_by_verdict
    path = os.environ[ENV_VERDICTS]
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        _read_verdicts(path)
        if any(verdict == "stop" for _, verdict in _verdict_answers):
            _stopped_by_verdict = True
            return
        if any(resource >= at for resource, _ in _verdict_answers):
            return
        if stop_requested() or time.monotonic() >= deadline:
            break
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
    if not stop_requested():
        print("gpusweep: no verdict for %s=%r within %gs; continuing"
              % (os.environ.get(ENV_RESOURCE), at, timeout), file=sys.stderr, flush=True)


def _read_verdicts(path):
    """Adds the complete lines appended to `path` since the last call."""
    global _verdicts_read
    try:
        with open(path, "rb") as f:
            f.seek(_verdicts_read)
            data = f.read()
    except OSError:
        return
    end = data.rfind(b"\n") + 1
    _verdicts_read += end
    for line in data[:end].splitlines():
        try:
            answer = json.loads(line)
            _verdict_answers.append((float(answer["resource"]), answer["verdict"]))
        except (ValueError, KeyError, TypeError):
            continue


def _to_json_value(value, where):
    """Converts `value` to plain JSON types; rejects non-finite floats.

    `where` names the value for error messages, e.g. "hist[2]".
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(
                "metric %s is %r; JSON cannot hold NaN or infinity "
                "(report a finite number or None)" % (where, value))
        return float(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("metric %s has a non-string key %r" % (where, key))
            out[key] = _to_json_value(item, "%s.%s" % (where, key))
        return out
    if isinstance(value, (list, tuple)):
        return [_to_json_value(item, "%s[%d]" % (where, i))
                for i, item in enumerate(value)]
    item = getattr(value, "item", None)
    if callable(item):
        try:
            converted = item()
        except (TypeError, ValueError) as e:
            raise TypeError("metric %s (%s) is not a scalar: %s"
                            % (where, type(value).__name__, e)) from None
        if converted is not value:
            return _to_json_value(converted, where)
    raise TypeError("metric %s has type %s, which JSON cannot hold"
                    % (where, type(value).__name__))


def _append_line(path, text):
    """Appends `text` and a newline to `path` in a single write()."""
    data = (text + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, data)
        while written < len(data):  # short writes: only on unusual filesystems
            written += os.write(fd, data[written:])
    finally:
        os.close(fd)


if __name__ == "__main__":
    # `python3 gpusweep.py` prints what this process would see, for debugging.
    print(json.dumps({"in_gpusweep": in_gpusweep(), "trial_id": trial_id(),
                      "trial_dir": str(trial_dir()), "params": params()},
                     indent=2))
