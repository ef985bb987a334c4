#!/usr/bin/env python3
"""tests/fuzz/campaign.py: the acceptance campaign of issue 16, run by hand (not a Bazel test).

    bazel build //tools:all --disk_cache=/tmp/t2s-disk-cache
    python3 tests/fuzz/campaign.py [--seed N] [--specs N] [--irs N] [--npys N] [--emulations N]

Runs the built tools (bazel-bin/tools) on mutated inputs of the issue's classes, in a temporary
directory: spec bytes and tokens (t2s-parse, then each later tool on what it accepts), IR fields
and cross-references (every tool on a mutated golden stage), hostile sizes (-D on the specs'
size macros), malformed .npy files (t2s-run --input and an emulation's --input), and outputs to
non-regular paths (a FIFO, a symlink, a read-only file, a directory). A finding is an exit
status other than 0 or 1 (2 for a usage error the campaign makes on purpose is not one), a
signal, a run over 10 s (t2s-run with --max-steps 10^7), a peak memory over 4 GiB, or an emulation whose output differs from
t2s-run's on the same IR. Prints the counts and each finding; exit 1 when there is one.
"""
import argparse
import json
import os
import random
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.environ.get("T2S_TOOLS", os.path.join(ROOT, "bazel-bin", "tools"))
TIMEOUT = 10
MEMORY = 4 << 30

findings = []
counts = {}


def run(args, stdin=None, timeout=TIMEOUT):
    """Runs a tool under the memory limit; returns (status, stderr) or records a finding."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY + (1 << 30), MEMORY + (1 << 30)))

    try:
        p = subprocess.run(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return "timeout", b""
    return p.returncode, p.stderr


def check(kind, args, status, err, keep):
    counts[kind] = counts.get(kind, 0) + 1
    if status in (0, 1):
        return
    findings.append((kind, " ".join(args), status, err[-400:].decode(errors="replace"), keep))


def tool(name):
    return os.path.join(TOOLS, name)


# t2s-run's stated limit on its work (--max-steps, default 2 x 10^9 statement executions: minutes
# for a legal program that large), set so that a run stays within the campaign's 10 s.
RUN_LIMIT = ["--max-steps", "10000000"]


STAGE_TOOLS = ["t2s-merge", "t2s-stt", "t2s-vec", "t2s-gather"]


def chain(kind, first_json, work, keep):
    """Every later tool on an IR file, t2s-run and t2s-emit on each result."""
    current = first_json
    for cmd in [["t2s-run"] + RUN_LIMIT, ["t2s-emit", "--target", "opencl"],
                ["t2s-emit", "--target", "cpp"]]:
        s, e = run([tool(cmd[0])] + cmd[1:] + [current, "-o", os.path.join(work, "o")])
        check(kind + ":" + cmd[0], cmd + [current], s, e, keep)
    for t in STAGE_TOOLS:
        out = os.path.join(work, t + ".json")
        s, e = run([tool(t), current, "-o", out])
        check(kind + ":" + t, [t, current], s, e, keep)
        if s != 0:
            return
        current = out
        s, e = run([tool("t2s-run"), current, "-o", os.path.join(work, "r.npy")] + RUN_LIMIT)
        check(kind + ":t2s-run", ["t2s-run", current], s, e, keep)


def mutate_spec(text, rng):
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\s+|.", text, re.S)
    words = [t for t in tokens if t.strip()]
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(tokens))
        r = rng.random()
        if r < 0.3:
            tokens[i] = rng.choice(words)
        elif r < 0.45:
            tokens[i] = ""
        elif r < 0.6:
            tokens[i] = rng.choice(["0", "-1", "2147483647", "2147483648", "99999999999999999999",
                                    "1e40", "(", ")", "{", "}", ",", ";", "#", "\\", "\"", "/*"])
        elif r < 0.8:
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        else:
            b = bytearray("".join(tokens).encode())
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
            return b.decode("latin-1")
    return "".join(tokens)


def spec_campaign(n, rng, work, keep_dir):
    specs = sorted(os.path.join(ROOT, "testdata", "specs", f)
                   for f in os.listdir(os.path.join(ROOT, "testdata", "specs"))
                   if f.endswith(".t2s"))
    for k in range(n):
        src = rng.choice(specs)
        text = open(src, encoding="latin-1").read()
        path = os.path.join(work, "m.t2s")
        with open(path, "w", encoding="latin-1") as f:
            f.write(mutate_spec(text, rng))
        keep = os.path.join(keep_dir, "spec_%d.t2s" % k)
        shutil.copy(path, keep)
        out = os.path.join(work, "parsed.json")
        s, e = run([tool("t2s-parse"), "-I", os.path.dirname(src), path, "-o", out])
        check("spec:t2s-parse", ["t2s-parse", keep], s, e, keep)
        if s == 0 and k % 4 == 0:
            chain("spec", out, work, keep)
        os.remove(keep) if not any(f[4] == keep for f in findings) else None


def mutate_json(doc, rng, names):
    nodes = []

    def walk(x, parent, key):
        nodes.append((x, parent, key))
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, x, k)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, x, i)

    walk(doc, None, None)
    for _ in range(rng.randint(1, 3)):
        x, parent, key = rng.choice(nodes)
        if parent is None:
            continue
        # An earlier edit of this document may have deleted the element (or its list's tail).
        if isinstance(parent, list) and (key >= len(parent) or parent[key] is not x):
            continue
        r = rng.random()
        if isinstance(x, str) and r < 0.5:
            parent[key] = rng.choice(names) if rng.random() < 0.7 else x + "x"
        elif isinstance(x, int) and not isinstance(x, bool):
            parent[key] = rng.choice([0, -1, 1, x + 1, x - 1, 1 << 24, 2**31, 2**63 - 1, -(2**63)])
        elif isinstance(x, list) and x:
            i = rng.randrange(len(x))
            if r < 0.5:
                del x[i]
            else:
                x.insert(i, json.loads(json.dumps(x[i])))
        elif isinstance(x, dict) and x and r < 0.3:
            del x[rng.choice(list(x))]
        else:
            other = rng.choice(nodes)[0]
            if type(other) is type(x):
                parent[key] = json.loads(json.dumps(other))


def ir_campaign(n, rng, work, keep_dir):
    golden = os.path.join(ROOT, "testdata", "golden")
    files = sorted(os.path.join(golden, d, f) for d in os.listdir(golden)
                   for f in os.listdir(os.path.join(golden, d)) if f.endswith(".json"))
    for k in range(n):
        doc = json.load(open(rng.choice(files)))
        names = sorted({v for v in re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', json.dumps(doc))})
        mutate_json(doc, rng, names or ["x"])
        path = os.path.join(keep_dir, "ir_%d.json" % k)
        with open(path, "w") as f:
            json.dump(doc, f)
        before = len(findings)
        chain("ir", path, work, path)
        if len(findings) == before:
            os.remove(path)


def hostile_sizes(work, keep_dir):
    cases = [("gemm.t2s", ["-D", "I=2147483647"]), ("gemm.t2s", ["-D", "K=1000000000"]),
             ("gemm_tiled.t2s", []), ("conv1d.t2s", ["-D", "N=2000000000"])]
    for spec, defines in cases:
        src = os.path.join(ROOT, "testdata", "specs", spec)
        text = open(src).read()
        # Every size macro of the spec at a hostile value, one at a time.
        for macro in re.findall(r"^#define\s+([A-Z]+)\s+[0-9]+", text, re.M)[:6]:
            for value in ["0", "1", "65536", "2147483647", "4294967296"]:
                path = os.path.join(work, "h.t2s")
                with open(path, "w") as f:
                    f.write(re.sub(r"^#define\s+%s\s+[0-9]+" % macro,
                                   "#define %s %s" % (macro, value), text, flags=re.M))
                out = os.path.join(work, "h.json")
                s, e = run([tool("t2s-parse"), path, "-o", out] + defines)
                check("size:t2s-parse", ["t2s-parse", spec, macro, value], s, e, spec)
                if s == 0:
                    chain("size", out, work, "%s %s=%s" % (spec, macro, value))


def npy_campaign(n, rng, work, emulation):
    seeds = os.path.join(ROOT, "tests", "fuzz", "seeds", "npy")
    ir = os.path.join(ROOT, "testdata", "golden", "isolate_consumer", "merged.json")
    good = os.path.join(work, "a.npy")
    s, _ = run([tool("t2s-run"), ir, "-o", good])
    pool = [open(os.path.join(seeds, f), "rb").read() for f in sorted(os.listdir(seeds))]
    pool.append(open(good, "rb").read())
    for k in range(n):
        b = bytearray(rng.choice(pool))
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.5 and b:
                b[rng.randrange(min(len(b), 128))] = rng.randrange(256)
            elif r < 0.7:
                del b[rng.randrange(len(b) + 1):]
            else:
                b += os.urandom(rng.randrange(64))
        path = os.path.join(work, "in.npy")
        with open(path, "wb") as f:
            f.write(b)
        for prog in [[tool("t2s-run"), ir], [emulation]] if emulation else [[tool("t2s-run"), ir]]:
            s, e = run(prog + ["--input", "a=" + path, "-o", os.path.join(work, "o.npy")])
            check("npy:" + os.path.basename(prog[0]), prog, s, e, bytes(b[:64]).hex())


def output_campaign(work, emulation):
    ir = os.path.join(ROOT, "testdata", "golden", "gemm", "merged.json")
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    ro = os.path.join(work, "ro")
    open(ro, "w").write("ro")
    os.chmod(ro, 0o444)
    link = os.path.join(work, "link")
    os.symlink(os.path.join(work, "target"), link)
    dangling = os.path.join(work, "dangling")
    os.symlink(os.path.join(work, "nodir", "x"), dangling)
    adir = os.path.join(work, "adir")
    os.mkdir(adir)
    cmds = [[tool("t2s-merge"), os.path.join(ROOT, "testdata", "golden", "gemm", "parsed.json")],
            [tool("t2s-emit"), "--target", "cpp", ir], [tool("t2s-run"), ir]] + ([[emulation]] if emulation else [])
    for cmd in cmds:
        for path in [fifo, ro, link, dangling, adir, os.path.join(work, "nodir", "x")]:
            if path == fifo:
                # A reader, so that a tool writing through the FIFO does not block.
                reader = subprocess.Popen(["cat", fifo], stdout=subprocess.DEVNULL)
            s, e = run(cmd + ["-o", path])
            if path == fifo:
                if s != 0:
                    open(fifo, "w").close()  # unblock the reader
                reader.wait(timeout=10)
            check("output:" + os.path.basename(cmd[0]), cmd + ["-o", path], s, e, path)
            if path == ro and open(ro).read() != "ro":
                findings.append(("output", " ".join(cmd), "changed a read-only file", "", ro))


def emulation_campaign(n, rng, work, keep_dir):
    """Mutated IR that t2s-run runs: the emulation must agree (exit status and output)."""
    golden = os.path.join(ROOT, "testdata", "golden")
    files = sorted(os.path.join(golden, d, "gathered.json") for d in os.listdir(golden)
                   if os.path.exists(os.path.join(golden, d, "gathered.json")))
    done = 0
    for k in range(n * 20):
        if done >= n:
            break
        doc = json.load(open(rng.choice(files)))
        names = sorted({v for v in re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', json.dumps(doc))})
        mutate_json(doc, rng, names or ["x"])
        path = os.path.join(work, "e.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        ref = os.path.join(work, "ref.npy")
        s, e = run([tool("t2s-run"), path, "-o", ref])
        if s not in (0, 1):
            check("emulation:t2s-run", ["t2s-run", path], s, e, path)
            continue
        cpp = os.path.join(work, "e.cpp")
        if run([tool("t2s-emit"), "--target", "cpp", path, "-o", cpp])[0] != 0:
            continue
        exe = os.path.join(work, "e")
        c = subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", "-ffp-contract=off", cpp,
                            "-o", exe], capture_output=True)
        if c.returncode != 0:
            keep = os.path.join(keep_dir, "emulation_compile_%d.json" % k)
            shutil.copy(path, keep)
            findings.append(("emulation:compile", path, c.returncode, c.stderr[-400:].decode(),
                             keep))
            continue
        done += 1
        out = os.path.join(work, "out.npy")
        if os.path.exists(out):
            os.remove(out)
        s2, e2 = run([exe, "-o", out], timeout=60)
        check("emulation:run", [exe], s2, e2, path)
        counts["emulation:compared"] = counts.get("emulation:compared", 0) + 1
        agree = (s == s2) and (s != 0 or open(ref, "rb").read() == open(out, "rb").read())
        if not agree:
            keep = os.path.join(keep_dir, "emulation_%d.json" % k)
            shutil.copy(path, keep)
            findings.append(("emulation:disagree", path, "%s vs %s" % (s, s2),
                             (e + b" | " + e2)[-400:].decode(errors="replace"), keep))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--specs", type=int, default=2000)
    ap.add_argument("--irs", type=int, default=1000)
    ap.add_argument("--npys", type=int, default=300)
    ap.add_argument("--emulations", type=int, default=10)
    ap.add_argument("--keep", default=None, help="directory for findings (default: a temp dir)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="t2s-campaign.")
    keep_dir = a.keep or os.path.join(work, "findings")
    os.makedirs(keep_dir, exist_ok=True)
    # One emulation program for the .npy and output checks.
    emulation = None
    cpp = os.path.join(work, "iso.cpp")
    if run([tool("t2s-emit"), "--target", "cpp",
            os.path.join(ROOT, "testdata", "golden", "isolate_consumer", "merged.json"),
            "-o", cpp])[0] == 0:
        emulation = os.path.join(work, "iso")
        subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", cpp, "-o", emulation], check=True)
    spec_campaign(a.specs, rng, work, keep_dir)
    ir_campaign(a.irs, rng, work, keep_dir)
    hostile_sizes(work, keep_dir)
    npy_campaign(a.npys, rng, work, emulation)
    output_campaign(work, emulation)
    emulation_campaign(a.emulations, rng, work, keep_dir)
    for kind in sorted(counts):
        print("%-24s %d" % (kind, counts[kind]))
    print("%d runs, %d findings (work directory %s)" % (sum(counts.values()), len(findings), work))
    for f in findings:
        print("FINDING", f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
