"""gpusweep trial helper: read a trial's params, report its metrics.

gpusweep runs every trial as a command in its own process and tells it where
things are through environment variables (see docs/protocol.md):

    GPUSWEEP_TRIAL_ID   the trial's id, e.g. "7"
    GPUSWEEP_TRIAL_DIR  the trial's directory (also the working directory)
    GPUSWEEP_PARAMS     path of params.json, a JSON object of the trial's params
    GPUSWEEP_METRICS    path of metrics.jsonl, where the trial appends results
    GPUSWEEP_BUDGET     with a scheduler that gives budgets: this job's budget
    GPUSWEEP_RUNG       ... and its rung (0, 1, ...)

This module is a thin convenience over that protocol; a trial does not need it
(appending a JSON line to $GPUSWEEP_METRICS from any language is enough).

Typical use::

    import gpusweep
    p = gpusweep.params()                  # {} when run outside gpusweep
    lr = p.get("lr", 0.01)
    for epoch in range(10):
        ...
        gpusweep.report(step=epoch, val_acc=acc, val_loss=loss)

Early stopping: a scheduler that prunes a trial sends SIGTERM to its process
group and SIGKILL after `kill_grace` (default 10 s). To save a checkpoint first::

    gpusweep.handle_stop()                 # SIGTERM now only sets a flag
    for epoch in range(start, epochs):
        ...
        gpusweep.report(epoch=epoch, val_acc=acc)
        if gpusweep.stop_requested():
            torch.save(state, gpusweep.trial_dir() / "checkpoint.pt")
            break

Budgeted trials (scheduler successive_halving, or asha/hyperband when the
command reads {{budget}}) run again in the same directory with a larger
budget when promoted: load the checkpoint there and train up to budget().

Outside gpusweep (GPUSWEEP_METRICS unset) `report` prints the JSON line to
stdout instead, so the same script runs standalone.

Standard library only; Python >= 3.8.
"""

import json
import math
import os
import pathlib
import signal

__all__ = ["params", "report", "trial_dir", "trial_id", "in_gpusweep", "budget", "rung",
           "handle_stop", "stop_requested"]

ENV_TRIAL_ID = "GPUSWEEP_TRIAL_ID"
ENV_TRIAL_DIR = "GPUSWEEP_TRIAL_DIR"
ENV_PARAMS = "GPUSWEEP_PARAMS"
ENV_METRICS = "GPUSWEEP_METRICS"
ENV_BUDGET = "GPUSWEEP_BUDGET"
ENV_RUNG = "GPUSWEEP_RUNG"

_stop_signal = None  # the signal number handle_stop() caught, if any


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


def report(metrics=None, /, *, step=None, **kwargs):
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

    Returns:
        The JSON text of the line written, without the newline.

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
        return text
    _append_line(path, text)
    return text


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
