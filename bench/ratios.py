"""Compare tessera-bench JSON results with the Triton/PyTorch anchors and check the speed targets."""
# usage: python3 bench/ratios.py anchors.json ours1.json [ours2.json ...] [--markdown out.md]
import json
import os
import sys

DASH = "—"
# (work, minimum ratio to Triton through CUDA, through Vulkan)
TARGETS = [
    ("add f32 n=2^28", 0.98, 0.95),
    ("softmax f32 4096x1024", 1.0, 0.90),
    ("softmax f32 4096x16384", 1.0, 0.90),
    ("layernorm f16 4096x4096", 1.0, 0.90),
    ("layernorm f16 4096x8192", 1.0, 0.90),
]
PORTABLE_TARGET = 0.9
NOT_TIMED = ("compile+first launch add", "second launch add (host)")


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError) as e:
        print(f"ratios: cannot read {path}: {e}", file=sys.stderr)
        return {}


def number(value):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
    return float(value) if ok else None


def entries(data):
    rows = data.get("results")
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("work"), str)] if isinstance(rows, list) else []


def speed_ratio(mine, base):
    """How many times faster `mine` is than `base` on the same work: time ratio, else GB/s ratio."""
    if not mine or not base:
        return None
    ms_mine, ms_base = number(mine.get("median_ms")), number(base.get("median_ms"))
    if ms_mine and ms_base:
        return ms_base / ms_mine
    gb_mine, gb_base = number(mine.get("gbps")), number(base.get("gbps"))
    return gb_mine / gb_base if gb_mine and gb_base else None


def gbps(entry):
    return fmt(number(entry.get("gbps")) if entry else None, "{:.1f}")


def fmt(value, pattern):
    return DASH if value is None else pattern.format(value)


def ratio_text(value):
    return fmt(value, "{:.3f}x")


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in rows])


def verdict(measured, target):
    if measured is None:
        return DASH
    if measured >= target:
        return "met"
    return f"missed by {(1 - measured / target) * 100:.1f}%"


def main(argv):
    markdown, files = None, []
    i = 0
    while i < len(argv):
        if argv[i] == "--markdown" and i + 1 < len(argv):
            markdown, i = argv[i + 1], i + 2
            continue
        if argv[i].startswith("--markdown="):
            markdown = argv[i].split("=", 1)[1]
        else:
            files.append(argv[i])
        i += 1
    if len(files) < 2:
        print(__doc__ + "\nusage: python3 bench/ratios.py anchors.json ours1.json [ours2.json ...] [--markdown out.md]")
        return 2

    anchors = load(files[0])
    anchor = {(r["work"], r.get("impl")): r for r in entries(anchors)}
    ours, labels = [], []
    for path in files[1:]:
        data = load(path)
        backend = data.get("backend") if isinstance(data.get("backend"), str) else os.path.basename(path)
        label = backend if backend not in labels else f"{backend}#{labels.count(backend) + 1}"
        labels.append(label)
        ours.append((label, backend.lower(), data, {(r["work"], r.get("mode")): r for r in entries(data)}))

    works = []
    for work, _ in list(anchor) + [k for _, _, _, byk in ours for k in byk]:
        if work not in works and work not in NOT_TIMED and not work.startswith("copy "):
            works.append(work)

    header = ["work", "Triton GB/s", "PyTorch GB/s"]
    for label, *_ in ours:
        header += [f"{label} fast GB/s", f"{label}/Triton", f"{label} portable/fast"]
    rows = []
    for work in works:
        triton = anchor.get((work, "triton"))
        row = [work, gbps(triton), gbps(anchor.get((work, "torch")))]
        for _, _, _, byk in ours:
            fast, portable = byk.get((work, "fast")), byk.get((work, "portable"))
            row += [gbps(fast), ratio_text(speed_ratio(fast, triton)), ratio_text(speed_ratio(portable, fast))]
        rows.append(row)

    target_rows = []
    for work, cuda_min, vulkan_min in TARGETS:
        triton = anchor.get((work, "triton"))
        for label, backend, _, byk in ours:
            goal = {"cuda": cuda_min, "vulkan": vulkan_min}.get(backend)
            measured = speed_ratio(byk.get((work, "fast")), triton)
            target_rows.append([work, f"{label} fast / Triton", ratio_text(measured),
                                fmt(goal, ">= {:.2f}x"), verdict(measured, goal) if goal else DASH])
    for work, *_ in TARGETS:
        for label, _, _, byk in ours:
            measured = speed_ratio(byk.get((work, "portable")), byk.get((work, "fast")))
            target_rows.append([work, f"{label} portable / fast", ratio_text(measured),
                                f">= {PORTABLE_TARGET:.2f}x", verdict(measured, PORTABLE_TARGET)])

    copy_anchor = number((anchor.get(("copy f32 2GiB", "torch")) or {}).get("gbps"))
    copy_rows = [["PyTorch copy f32 2GiB (anchor)", fmt(copy_anchor, "{:.1f}"), DASH]]
    for label, _, data, _ in ours:
        mine = number(data.get("copy_gbps"))
        copy_rows.append([f"{label} copy_gbps", fmt(mine, "{:.1f}"),
                          ratio_text(mine / copy_anchor if mine and copy_anchor else None)])

    def describe(data):
        keys = ("device", "backend", "driver", "torch", "triton", "date")
        return ", ".join(f"{k} {data[k]}" for k in keys if isinstance(data.get(k), str)) or DASH

    sources = [f"- anchors ({files[0]}): {describe(anchors)}"]
    sources += [f"- {label} ({path}): {describe(data)}" for (label, _, data, _), path in zip(ours, files[1:])]
    compile_rows = [[w, fmt(number((anchor.get((w, "triton")) or {}).get("median_ms")), "{:.2f}")] for w in NOT_TIMED]
    text = "\n\n".join([
        "## Sources\n\n" + "\n".join(sources),
        "## Throughput (ratios are speed ratios on the same work: >1 means faster)\n\n" + table(header, rows),
        "## Targets\n\n" + table(["work", "ratio", "measured", "target", "status"], target_rows),
        "## Copy bandwidth\n\n" + table(["what", "GB/s", "vs PyTorch copy"], copy_rows),
        "## Triton compile cost (host ms)\n\n" + table(["what", "ms"], compile_rows),
    ]) + "\n"
    print(text, end="")
    if markdown:
        try:
            with open(markdown, "w") as f:
                f.write("# Tessera vs anchors\n\n" + text)
        except OSError as e:
            print(f"ratios: cannot write {markdown}: {e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
