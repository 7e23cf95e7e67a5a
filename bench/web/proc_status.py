"""A process's peak resident memory, for the bench/web scripts."""


def peak_rss_mib(pid):
    """VmHWM of process `pid` in MiB (NaN when /proc does not say)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")
