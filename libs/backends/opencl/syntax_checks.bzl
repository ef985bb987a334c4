"""opencl_syntax_checks: every spec's OpenCL checked by clang and g++ as build actions.

For each .t2s file of `specs`, two actions (their scripts' comments say what each does):
  T2sSyntaxEmit     syntax_emit.sh: the spec through t2s-parse, t2s-merge, t2s-stt and
                    emit_opencl_driver (the exec configuration's tools) -> NAME/STEM.emitted/
  T2sSyntaxCompile  syntax_compile.sh: clang on its .cl files, g++ and clang++-14 on its host
                    programs, a host-only program built -> NAME/STEM.checked/ (log, host_program)
The compile action reads only the emitted files, so when a change of the tools leaves them
byte-identical its result comes from Bazel's cache (the disk cache of scripts/test): the
compilers run again only on code that changed. //libs/backends/opencl:syntax_test reads both
directories (and runs the host-only programs against t2s-run).
"""

def _opencl_syntax_checks_impl(ctx):
    checks = {f.basename: f for f in ctx.files._checks}
    for needed in ["check_cl.sh", "check_host.sh", "intel_fpga_channels.h"]:
        if needed not in checks:
            fail("%s has no %s" % (ctx.attr._checks.label, needed))
    tools = [
        ctx.attr._parse[DefaultInfo].files_to_run,
        ctx.attr._merge[DefaultInfo].files_to_run,
        ctx.attr._stt[DefaultInfo].files_to_run,
        ctx.attr._driver[DefaultInfo].files_to_run,
    ]
    # Headers a spec may #include (specs/include/): inputs of every emit action.
    others = [f for f in ctx.files.specs if not f.basename.endswith(".t2s")]
    outputs = []
    for spec in ctx.files.specs:
        if not spec.basename.endswith(".t2s"):
            continue
        stem = spec.basename[:-len(".t2s")]
        emitted = ctx.actions.declare_directory("%s/%s.emitted" % (ctx.label.name, stem))
        ctx.actions.run(
            executable = ctx.executable._emit_script,
            arguments = [
                ctx.executable._parse.path,
                ctx.executable._merge.path,
                ctx.executable._stt.path,
                ctx.executable._driver.path,
                spec.path,
                emitted.path,
            ],
            inputs = [spec] + others,
            tools = tools,
            outputs = [emitted],
            mnemonic = "T2sSyntaxEmit",
            progress_message = "Emitting the OpenCL of %s at the merged and stt stages" % spec.short_path,
        )
        checked = ctx.actions.declare_directory("%s/%s.checked" % (ctx.label.name, stem))
        ctx.actions.run(
            executable = ctx.executable._compile_script,
            arguments = [
                checks["check_cl.sh"].path,
                checks["check_host.sh"].path,
                checks["intel_fpga_channels.h"].path,
                emitted.path,
                checked.path,
            ],
            inputs = [emitted] + ctx.files._checks,
            outputs = [checked],
            # PATH (the strict action environment's /bin:/usr/bin:/usr/local/bin) for clang and g++.
            use_default_shell_env = True,
            mnemonic = "T2sSyntaxCompile",
            progress_message = "Checking the OpenCL of %s with clang and g++" % spec.short_path,
        )
        outputs += [emitted, checked]
    return [DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs))]

opencl_syntax_checks = rule(
    implementation = _opencl_syntax_checks_impl,
    doc = "Every spec's .cl and host programs (merged and stt stages, placed and --all-device) " +
          "checked by clang and g++ as cached build actions.",
    attrs = {
        "specs": attr.label_list(allow_files = True, mandatory = True),
        "_checks": attr.label(default = Label("//libs/backends/opencl/testing:checks")),
        "_compile_script": attr.label(
            default = Label("//libs/backends/opencl:syntax_compile.sh"),
            allow_single_file = True,
            executable = True,
            cfg = "exec",
        ),
        "_driver": attr.label(
            default = Label("//libs/backends/opencl:emit_opencl_driver"),
            executable = True,
            cfg = "exec",
        ),
        "_emit_script": attr.label(
            default = Label("//libs/backends/opencl:syntax_emit.sh"),
            allow_single_file = True,
            executable = True,
            cfg = "exec",
        ),
        "_merge": attr.label(default = Label("//:t2s-merge"), executable = True, cfg = "exec"),
        "_parse": attr.label(default = Label("//:t2s-parse"), executable = True, cfg = "exec"),
        "_stt": attr.label(default = Label("//:t2s-stt"), executable = True, cfg = "exec"),
    },
)
