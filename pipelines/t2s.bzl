"""Bazel rules that chain the t2s tools: one cached action per stage, one file per stage.

    load("@t2s//pipelines:t2s.bzl", "t2s_pipeline", "t2s_golden_test",
         "t2s_emulation_test", "t2s_opencl_test")

    t2s_pipeline(name = "gemm", src = "gemm.t2s")
    # bazel build :gemm            every stage and every emitted file
    # bazel build :gemm.cl         one file (each output below is a file target)
    # bazel build :gemm --output_groups=stt,opencl

Outputs of `t2s_pipeline(name = NAME, ...)`, in the package of the pipeline:

    NAME.parsed.json      t2s-parse SRC [-D NAME=VALUE]... [-I DIR]...     (mnemonic T2sParse)
    NAME.merged.json      t2s-merge                                        (T2sMerge)
    NAME.stt.json         t2s-stt                                          (T2sStt)
    NAME.vectorized.json  t2s-vec                                          (T2sVec)
    NAME.gathered.json    t2s-gather                                       (T2sGather)
    NAME.cl, NAME_host.cpp  t2s-emit --target opencl --host NAME_host.cpp  (T2sEmitOpencl)
    NAME_emu.cpp          t2s-emit --target cpp                            (T2sEmitCpp)
    NAME.dot              t2s-emit --target dot                            (T2sEmitDot)
    NAME.txt              t2s-emit --target text                           (T2sEmitText)
    NAME_report.txt       t2s-emit --target report                         (T2sEmitReport)

The parse action also writes NAME.spec_lines.json (t2s-parse --spec-lines-out): the spec lines
the IR's locations point at. Every later action reads its stage's IR and that file
(--spec-lines), never the spec, so an edit that leaves both alone (a comment on its own line)
re-runs the parse action only. Each action reads only its declared inputs and no environment
(docs/pipelines.md "Remote caching and execution").

Stages after `through` and targets not in `targets` are not declared. Output groups: one per
stage (`parsed`, `merged`, `stt`, `vectorized`, `gathered`), one per target (`opencl`, `cpp`,
`dot`, `text`, `report`), `stages`, `emitted` and `spec_lines`.

The tools are the public names of the repository that defines this file (Label("//:t2s-parse")
and so on, the aliases of the top-level BUILD), built for the execution platform, so the rules
work the same when t2s is an external repository (`local_repository(name = "t2s", ...)`) of the
user's workspace, whose BUILD files name nothing of t2s but this file.
"""

# Pipeline stages in order: (stage, tool attribute, mnemonic, output suffix).
_STAGES = [
    ("parsed", "_t2s_parse", "T2sParse", ".parsed.json"),
    ("merged", "_t2s_merge", "T2sMerge", ".merged.json"),
    ("stt", "_t2s_stt", "T2sStt", ".stt.json"),
    ("vectorized", "_t2s_vec", "T2sVec", ".vectorized.json"),
    ("gathered", "_t2s_gather", "T2sGather", ".gathered.json"),
]
STAGE_NAMES = [s[0] for s in _STAGES]

# Stages `through` may name: t2s-emit takes any lowered stage.
_THROUGH = ["merged", "stt", "vectorized", "gathered"]

# Emit targets: target -> [(output key, output suffix)]; the first is t2s-emit's -o.
_TARGETS = {
    "opencl": [("cl", ".cl"), ("host", "_host.cpp")],
    "cpp": [("emu", "_emu.cpp")],
    "dot": [("dot", ".dot")],
    "text": [("txt", ".txt")],
    "report": [("report", "_report.txt")],
}
TARGET_NAMES = ["opencl", "cpp", "dot", "text", "report"]

# The checked-in golden file of each output (t2s_golden_test): testdata/golden/<spec>/<file>.
GOLDEN_NAMES = {
    "parsed": "parsed.json",
    "merged": "merged.json",
    "stt": "stt.json",
    "vectorized": "vectorized.json",
    "gathered": "gathered.json",
    "cl": "kernel.cl",
    "host": "host.cpp",
    "emu": "emu.cpp",
    "dot": "array.dot",
    "txt": "text.txt",
    "report": "report.txt",
}

# Output keys in a fixed order (stages, then emitted files).
_OUTPUT_KEYS = STAGE_NAMES + ["cl", "host", "emu", "dot", "txt", "report"]

T2sPipelineInfo = provider(
    doc = "What a t2s_pipeline produced, for the test rules.",
    fields = {
        "src": "File: the spec",
        "hdrs": "depset of Files the spec may #include",
        "defines": "dict NAME -> VALUE: the -D options of t2s-parse",
        "include_dirs": "list of (exec path, runfiles path) pairs: the -I directories",
        "outputs": "dict output key (parsed ... gathered, cl, host, emu, dot, txt, report) -> File, " +
                   "only the outputs the pipeline declares",
        "last_stage": "File: the IR of the last stage (the one t2s-emit reads)",
        "through": "string: the last stage's name",
    },
)

def _runfiles_path(f):
    """The path of File f relative to the runfiles root of the main workspace."""
    return f.short_path

def _package_dir(label, runfiles):
    """The directory of label's package, as an exec path or a runfiles path."""
    if label.workspace_name:
        root = ("../" + label.workspace_name) if runfiles else label.workspace_root
    else:
        root = ""
    parts = [p for p in [root, label.package] if p]
    return "/".join(parts) if parts else "."

def _join(base, rel):
    if rel in ["", "."]:
        return base
    if base == ".":
        return rel
    return base + "/" + rel

def _t2s_pipeline_impl(ctx):
    src = ctx.file.src
    through = ctx.attr.through
    if through not in _THROUGH:
        fail("through must be one of %s, not %r" % (_THROUGH, through), attr = "through")
    for t in ctx.attr.targets:
        if t not in _TARGETS:
            fail("unknown target %r (known: %s)" % (t, TARGET_NAMES), attr = "targets")

    include_dirs = []
    for inc in ctx.attr.includes:
        if inc.startswith("/") or inc.startswith("../") or inc == "..":
            fail("includes are directories relative to the package, not %r" % inc, attr = "includes")
        include_dirs.append((
            _join(_package_dir(ctx.label, False), inc),
            _join(_package_dir(ctx.label, True), inc),
        ))
    parse_flags = []
    for name in sorted(ctx.attr.defines.keys()):
        parse_flags += ["-D", "%s=%s" % (name, ctx.attr.defines[name])]
    for exec_dir, _ in include_dirs:
        parse_flags += ["-I", exec_dir]

    # The spec lines the parsed IR's locations point at (t2s-parse --spec-lines-out): the later
    # stages show them in diagnostics and read neither the spec nor its includes, so an edit
    # that leaves the IR and those lines alone (a comment on its own line) re-runs the parse
    # action only (Bazel skips an action whose inputs are unchanged).
    spec_lines = ctx.actions.declare_file(ctx.label.name + ".spec_lines.json")
    outputs = {}
    groups = {}
    prev = None
    for stage, tool_attr, mnemonic, _ in _STAGES:
        out = getattr(ctx.outputs, "out_" + stage)
        if out == None:
            fail("internal: output of stage %s not declared" % stage)
        tool = getattr(ctx.executable, tool_attr)
        args = ctx.actions.args()
        if prev == None:
            args.add_all(parse_flags)
            args.add("--spec-lines-out", spec_lines)
            args.add(src)
            inputs = depset([src], transitive = [depset(ctx.files.hdrs)])
            action_outputs = [out, spec_lines]
        else:
            args.add("--spec-lines", spec_lines)
            args.add(prev)
            inputs = depset([prev, spec_lines])
            action_outputs = [out]
        args.add("-o", out)
        ctx.actions.run(
            executable = tool,
            arguments = [args],
            inputs = inputs,
            outputs = action_outputs,
            mnemonic = mnemonic,
            progress_message = "%s %s (%s stage)" % (mnemonic, out.short_path, stage),
        )
        outputs[stage] = out
        groups[stage] = depset([out])
        prev = out
        if stage == through:
            break

    for target in ctx.attr.targets:
        files = [getattr(ctx.outputs, "out_" + key) for key, _ in _TARGETS[target]]
        args = ctx.actions.args()
        args.add("--spec-lines", spec_lines)
        args.add(prev)
        args.add("--target", target)
        args.add("-o", files[0])
        if target == "opencl":
            args.add("--host", files[1])
        mnemonic = "T2sEmit" + target.capitalize()
        ctx.actions.run(
            executable = ctx.executable._t2s_emit,
            arguments = [args],
            inputs = [prev, spec_lines],
            outputs = files,
            mnemonic = mnemonic,
            progress_message = "%s %s (%s from the %s stage)" % (
                mnemonic,
                " ".join([f.short_path for f in files]),
                target,
                through,
            ),
        )
        for (key, _), f in zip(_TARGETS[target], files):
            outputs[key] = f
        groups[target] = depset(files)

    stage_files = [outputs[s] for s in STAGE_NAMES if s in outputs]
    emitted = [outputs[k] for k in _OUTPUT_KEYS if k in outputs and k not in STAGE_NAMES]
    groups["stages"] = depset(stage_files)
    groups["emitted"] = depset(emitted)
    groups["spec_lines"] = depset([spec_lines])
    return [
        DefaultInfo(files = depset(stage_files + [spec_lines] + emitted)),
        OutputGroupInfo(**groups),
        T2sPipelineInfo(
            src = src,
            hdrs = depset(ctx.files.hdrs),
            defines = dict(ctx.attr.defines),
            include_dirs = include_dirs,
            outputs = outputs,
            last_stage = prev,
            through = through,
        ),
    ]

def _tool(name):
    # The public alias //:NAME (top-level BUILD), resolved in t2s's own repository.
    return attr.label(default = Label("//:" + name), executable = True, cfg = "exec")

_t2s_pipeline_outputs = {"out_" + k: attr.output() for k in _OUTPUT_KEYS}

_t2s_pipeline = rule(
    implementation = _t2s_pipeline_impl,
    doc = "The stages of one spec; use the t2s_pipeline macro, which names the outputs.",
    attrs = dict(
        src = attr.label(allow_single_file = [".t2s"], mandatory = True),
        defines = attr.string_dict(),
        includes = attr.string_list(),
        hdrs = attr.label_list(allow_files = True),
        targets = attr.string_list(),
        through = attr.string(default = "gathered"),
        _t2s_parse = _tool("t2s-parse"),
        _t2s_merge = _tool("t2s-merge"),
        _t2s_stt = _tool("t2s-stt"),
        _t2s_vec = _tool("t2s-vec"),
        _t2s_gather = _tool("t2s-gather"),
        _t2s_emit = _tool("t2s-emit"),
        **_t2s_pipeline_outputs
    ),
)

def t2s_pipeline(
        name,
        src,
        defines = {},
        includes = [],
        hdrs = [],
        targets = ["opencl", "cpp", "dot", "text"],
        through = "gathered",
        visibility = None,
        **kwargs):
    """Lowers the spec `src` stage by stage and emits code from the last stage.

    Args:
      name: the pipeline; also the prefix of every output file (see the file's docstring).
      src: the .t2s spec.
      defines: {NAME: VALUE}: `-D NAME=VALUE` options of t2s-parse (sorted by NAME). A macro
        that only needs to be defined takes "1", as `cc -D NAME` defines it.
      includes: directories, relative to the package, that t2s-parse searches for
        `#include "file"` (-I) after the spec's own directory.
      hdrs: the files the spec #includes (inputs of the parse action).
      targets: what t2s-emit writes: any of "opencl" (NAME.cl and NAME_host.cpp), "cpp"
        (NAME_emu.cpp), "dot" (NAME.dot), "text" (NAME.txt), "report" (NAME_report.txt, the
        performance model at t2s-emit's default device and clock; not in the default list).
      through: the last stage lowered, and the one t2s-emit reads: "merged", "stt",
        "vectorized" or "gathered" (the default). A spec whose directives a later stage does
        not support yet stops before it (testdata/specs/vectorize_gather.t2s: through = "stt").
      visibility: of the pipeline and of every output file.
      **kwargs: common attributes (tags, testonly, ...).
    """
    if through not in _THROUGH:
        fail("t2s_pipeline %s: through must be one of %s, not %r" % (name, _THROUGH, through))
    for t in targets:
        if t not in _TARGETS:
            fail("t2s_pipeline %s: unknown target %r (known: %s)" % (name, t, TARGET_NAMES))
    outs = {}
    for stage, _, _, suffix in _STAGES:
        outs["out_" + stage] = name + suffix
        if stage == through:
            break
    for t in TARGET_NAMES:
        if t in targets:
            for key, suffix in _TARGETS[t]:
                outs["out_" + key] = name + suffix
    _t2s_pipeline(
        name = name,
        src = src,
        defines = defines,
        includes = includes,
        hdrs = hdrs,
        targets = [t for t in TARGET_NAMES if t in targets],
        through = through,
        visibility = visibility,
        **dict(outs, **kwargs)
    )

# --- Test rules -------------------------------------------------------------------------------

def _shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

def _write_launcher(ctx, script, args):
    """Writes ctx.outputs.executable: runs `script` (a runfiles File) with `args`, from the
    runfiles root of the main workspace (where every runfiles path below is valid)."""
    ws = ctx.workspace_name
    content = [
        "#!/usr/bin/env bash",
        "# Generated by t2s.bzl for %s." % ctx.label,
        "set -euo pipefail",
        'if [[ -n "${TEST_SRCDIR:-}" && -d "${TEST_SRCDIR}/%s" ]]; then' % ws,
        '  cd "${TEST_SRCDIR}/%s"' % ws,
        'elif [[ -d "$0.runfiles/%s" ]]; then' % ws,
        '  cd "$0.runfiles/%s"' % ws,
        'elif [[ -n "${RUNFILES_DIR:-}" && -d "${RUNFILES_DIR}/%s" ]]; then' % ws,
        '  cd "${RUNFILES_DIR}/%s"' % ws,
        "fi",
        "exec bash %s %s \"$@\"" % (
            _shell_quote(_runfiles_path(script)),
            " ".join([_shell_quote(a) for a in args]),
        ),
        "",
    ]
    ctx.actions.write(ctx.outputs.executable, "\n".join(content), is_executable = True)

def _parse_flags_for_runfiles(info):
    flags = []
    for name in sorted(info.defines.keys()):
        flags += ["-D", "%s=%s" % (name, info.defines[name])]
    for _, rdir in info.include_dirs:
        flags += ["-I", rdir]
    return flags

def _golden_impl(ctx, update):
    info = ctx.attr.pipeline[T2sPipelineInfo]
    golden_dir = _join(_package_dir(ctx.label, True), ctx.attr.golden_dir)
    args = [
        "--pipeline",
        str(ctx.attr.pipeline.label),
        "--golden-dir",
        golden_dir,
        "--update-command",
        ctx.attr.update_command,
    ]
    if update:
        args.append("--update")
    files = []
    for key in _OUTPUT_KEYS:
        if key in info.outputs:
            f = info.outputs[key]
            args += ["--file", GOLDEN_NAMES[key], _runfiles_path(f)]
            files.append(f)
    args += ["--known-names", " ".join([GOLDEN_NAMES[k] for k in _OUTPUT_KEYS])]
    tools = []
    if ctx.attr.spec_checks and not update:
        args += [
            "--spec",
            _runfiles_path(info.src),
            "--t2s-parse",
            _runfiles_path(ctx.executable._t2s_parse),
            "--t2s-merge",
            _runfiles_path(ctx.executable._t2s_merge),
            "--t2s-stt",
            _runfiles_path(ctx.executable._t2s_stt),
        ]
        for f in _parse_flags_for_runfiles(info):
            args += ["--parse-flag", f]
        tools = [ctx.attr._t2s_parse, ctx.attr._t2s_merge, ctx.attr._t2s_stt]
    _write_launcher(ctx, ctx.file._script, args)
    runfiles = ctx.runfiles(
        files = [ctx.file._script, info.src] + files + ([] if update else ctx.files.goldens),
        transitive_files = info.hdrs,
    )
    for t in tools:
        runfiles = runfiles.merge(t[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = ctx.outputs.executable, runfiles = runfiles)]

def _t2s_golden_test_impl(ctx):
    return _golden_impl(ctx, update = False)

def _t2s_golden_update_impl(ctx):
    return _golden_impl(ctx, update = True)

def _test_tool(name):
    return attr.label(default = Label("//:" + name), executable = True, cfg = "target")

_GOLDEN_ATTRS = {
    "pipeline": attr.label(providers = [T2sPipelineInfo], mandatory = True),
    "golden_dir": attr.string(mandatory = True),
    "goldens": attr.label_list(allow_files = True),
    "update_command": attr.string(default = "scripts/update-goldens"),
    "spec_checks": attr.bool(default = True),
    "_script": attr.label(default = Label("//pipelines:golden_test.sh"), allow_single_file = True),
    "_t2s_parse": _test_tool("t2s-parse"),
    "_t2s_merge": _test_tool("t2s-merge"),
    "_t2s_stt": _test_tool("t2s-stt"),
}

_t2s_golden_test = rule(
    implementation = _t2s_golden_test_impl,
    attrs = _GOLDEN_ATTRS,
    test = True,
)

_t2s_golden_update = rule(
    implementation = _t2s_golden_update_impl,
    attrs = _GOLDEN_ATTRS,
    executable = True,
)

def t2s_golden_test(name, pipeline, golden_dir, spec_checks = True, update_command = None, **kwargs):
    """Compares every file of `pipeline` with its golden copy in `golden_dir`.

    golden_dir (relative to the package) holds parsed.json, merged.json, stt.json,
    vectorized.json, gathered.json (the stages through the pipeline's `through`), kernel.cl and
    host.cpp (opencl), emu.cpp (cpp), array.dot (dot), text.txt (text). The test fails on a
    missing golden file, on a file that differs (printing `diff -u` and the update command) and
    on a golden file of those names the pipeline does not produce.

    With spec_checks (the default) it also runs the tools on the spec itself: t2s-parse of the
    spec from a file and from stdin, `t2s-merge SPEC` and `t2s-stt SPEC` must give the
    pipeline's parsed, merged and stt files byte for byte.

    Also defines NAME.update, an executable that writes the pipeline's files into golden_dir of
    the source tree: `bazel run //pkg:NAME.update` (scripts/update-goldens runs them all).
    """
    update_command = update_command or "scripts/update-goldens"
    goldens = native.glob([golden_dir + "/*"], allow_empty = True)
    _t2s_golden_test(
        name = name,
        pipeline = pipeline,
        golden_dir = golden_dir,
        goldens = goldens,
        update_command = update_command,
        spec_checks = spec_checks,
        **kwargs
    )
    _t2s_golden_update(
        name = name + ".update",
        pipeline = pipeline,
        golden_dir = golden_dir,
        update_command = update_command,
        tags = ["manual"],
        testonly = True,
        visibility = kwargs.get("visibility"),
    )

def _t2s_emulation_test_impl(ctx):
    info = ctx.attr.pipeline[T2sPipelineInfo]
    needed = "cl" if ctx.attr.device_code else "emu"
    if needed not in info.outputs:
        fail("the pipeline %s does not emit the %s target" %
             (ctx.attr.pipeline.label, "opencl" if ctx.attr.device_code else "cpp"), attr = "pipeline")
    if not ctx.attr.fills:
        fail("fills is empty: nothing to test", attr = "fills")
    for fill in ctx.attr.fills:
        if fill not in ["sequential", "random"]:
            fail("fills: %r is neither sequential nor random" % fill, attr = "fills")
    args = [
        "--emu",
        _runfiles_path(ctx.executable.emu),
        "--t2s-run",
        _runfiles_path(ctx.executable._t2s_run),
        "--ir",
        _runfiles_path(info.last_stage),
        "--seed",
        str(ctx.attr.seed),
    ]
    for fill in ctx.attr.fills:
        args += ["--fill", fill]
    extra = []
    if ctx.attr.device_code:
        args += ["--emu-arg", _runfiles_path(info.outputs["cl"])]
        extra = [info.outputs["cl"]]
    _write_launcher(ctx, ctx.file._script, args)
    runfiles = ctx.runfiles(files = [ctx.file._script, info.last_stage, info.outputs[needed]] + extra)
    runfiles = runfiles.merge(ctx.attr.emu[DefaultInfo].default_runfiles)
    runfiles = runfiles.merge(ctx.attr._t2s_run[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = ctx.outputs.executable, runfiles = runfiles)]

_t2s_emulation_test = rule(
    implementation = _t2s_emulation_test_impl,
    attrs = {
        "pipeline": attr.label(providers = [T2sPipelineInfo], mandatory = True),
        "emu": attr.label(executable = True, cfg = "target", mandatory = True),
        "fills": attr.string_list(),
        "seed": attr.int(default = 7),
        # The OpenCL executor: `emu` is the host program, run with the device code (NAME.cl).
        "device_code": attr.bool(default = False),
        "_script": attr.label(default = Label("//pipelines:emulation_test.sh"), allow_single_file = True),
        "_t2s_run": _test_tool("t2s-run"),
    },
    test = True,
)

def t2s_emulation_test(name, pipeline, fills = ["sequential", "random"], seed = 7, **kwargs):
    """Compiles the pipeline's NAME_emu.cpp and checks it computes what t2s-run computes.

    Builds `NAME_emu` (a cc_binary of the emitted emulation: -std=c++17 -ffp-contract=off,
    -pthread) and, for each fill ("random" with `seed`), runs it and `t2s-run --check` on the
    pipeline's last stage (which also checks that stage against the merged stage): the two .npy
    outputs must be byte-identical. On a difference it prints `diff -u` of both outputs'
    elements (`--print`).
    """
    emu = name + "_emu"
    native.cc_binary(
        name = emu,
        srcs = [_sibling(pipeline, "_emu.cpp")],
        copts = ["-std=c++17", "-ffp-contract=off"],
        linkopts = ["-pthread"],
        testonly = True,
        tags = kwargs.get("tags", []),
        visibility = ["//visibility:private"],
    )
    _t2s_emulation_test(
        name = name,
        pipeline = pipeline,
        emu = ":" + emu,
        fills = fills,
        seed = seed,
        **kwargs
    )

def t2s_opencl_exec_test(name, pipeline, fills = ["sequential", "random"], seed = 7, **kwargs):
    """Runs the pipeline's OpenCL, NAME.cl and NAME_host.cpp, on the CPU and checks it computes
    what t2s-run computes (docs/opencl-executor.md).

    Builds `NAME_host` (the emitted host program linked with the OpenCL executor's host API,
    //libs/backends/opencl/cpu:opencl_cpu, in place of libOpenCL) and, for each fill, runs it
    with NAME.cl (compiled by clang's OpenCL C front end when the program is built, every kernel
    a thread, Intel channels as FIFOs) and `t2s-run --check` on the last stage: the .npy
    outputs must be byte-identical, as t2s_emulation_test's.
    """
    host = name + "_host"
    native.cc_binary(
        name = host,
        srcs = [_sibling(pipeline, "_host.cpp")],
        copts = ["-std=c++17", "-ffp-contract=off", "-w"],
        deps = [Label("//libs/backends/opencl/cpu:opencl_cpu")],
        testonly = True,
        tags = kwargs.get("tags", []),
        # tests/opencl breaks copies of the device code and runs them with it.
        visibility = ["//tests:__subpackages__"],
    )
    _t2s_emulation_test(
        name = name,
        pipeline = pipeline,
        emu = ":" + host,
        device_code = True,
        fills = fills,
        seed = seed,
        **kwargs
    )

def _sibling(pipeline, suffix):
    """The label of an output file of `pipeline` (a label string): ":gemm" -> ":gemm_emu.cpp"."""
    if type(pipeline) != "string":
        fail("pipeline must be a label string, not %r" % (pipeline,))
    if ":" not in pipeline and "/" in pipeline:
        # //pkg/gemm is //pkg/gemm:gemm
        pipeline = pipeline + ":" + pipeline.split("/")[-1]
    return pipeline + suffix

def _t2s_opencl_test_impl(ctx):
    info = ctx.attr.pipeline[T2sPipelineInfo]
    if "cl" not in info.outputs:
        fail("the pipeline %s does not emit the opencl target" % ctx.attr.pipeline.label, attr = "pipeline")
    checks = {f.basename: f for f in ctx.files._checks}
    needed = ["check_cl.sh", "check_host.sh", "intel_fpga_channels.h"]
    for n in needed:
        if n not in checks:
            fail("%s has no %s" % (ctx.attr._checks.label, n))
    # The checks are a build action (cached like a compile: clang and g++ on the emitted files);
    # the test reports its log (opencl_test.sh --report).
    log = ctx.actions.declare_file(ctx.label.name + ".opencl_checks.log")
    ctx.actions.run_shell(
        inputs = [ctx.file._script, info.outputs["cl"], info.outputs["host"]] + ctx.files._checks,
        outputs = [log],
        command = 'bash "$1" "${@:3}" >"$2" 2>&1 || { cat "$2" >&2; exit 1; }',
        arguments = [
            ctx.file._script.path,
            log.path,
            "--check-cl",
            checks["check_cl.sh"].path,
            "--check-host",
            checks["check_host.sh"].path,
            "--header",
            checks["intel_fpga_channels.h"].path,
            "--cl",
            info.outputs["cl"].path,
            "--host",
            info.outputs["host"].path,
        ],
        # PATH (the strict action environment's /bin:/usr/bin:/usr/local/bin) for clang and g++.
        use_default_shell_env = True,
        mnemonic = "T2sOpenclCheck",
        progress_message = "Checking %s: the .cl with clang, the host program with g++" % ctx.label,
    )
    _write_launcher(ctx, ctx.file._script, ["--report", _runfiles_path(log)])
    runfiles = ctx.runfiles(files = [ctx.file._script, log])
    return [DefaultInfo(executable = ctx.outputs.executable, runfiles = runfiles)]

_t2s_opencl_test = rule(
    implementation = _t2s_opencl_test_impl,
    attrs = {
        "pipeline": attr.label(providers = [T2sPipelineInfo], mandatory = True),
        "_checks": attr.label(default = Label("//libs/backends/opencl/testing:checks")),
        "_script": attr.label(default = Label("//pipelines:opencl_test.sh"), allow_single_file = True),
    },
    test = True,
)

def t2s_opencl_test(name, pipeline, **kwargs):
    """Syntax-checks the pipeline's NAME.cl (as OpenCL, with a header declaring the Intel
    channel built-ins: libs/backends/opencl/testing/check_cl.sh) and NAME_host.cpp
    (check_host.sh). The checks run as a build action, cached as a compile is; a failing check
    fails the test's build with their output, and the test reports their log."""
    _t2s_opencl_test(name = name, pipeline = pipeline, **kwargs)
