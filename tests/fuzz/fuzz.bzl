"""t2s_fuzzer: one libFuzzer target (tests/fuzz/README.md).

t2s_fuzzer(name = "spec_fuzzer", srcs = [...], deps = [...], seeds = [...], seed_dirs = [...])
gives
  :spec_fuzzer                  the fuzz target: under --config=fuzz it links libFuzzer's driver
                                (scripts/fuzz runs it); otherwise tests/fuzz/standalone_main.cc,
                                which runs it once on each file it is given;
  :spec_fuzzer_regression_test  the target on its seed corpus (`seed_dirs`, runfile paths of
                                `seeds`) and on every saved finding in regressions/spec_fuzzer/:
                                fails on any finding, in every build (gcc, asan, ubsan, sanitize);
                                `regression_args` go first (`-t2s_mutations=N`: standalone_main.cc).
"""

def t2s_fuzzer(name, srcs, deps, seeds, seed_dirs, size = "small", regression_args = []):
    native.cc_library(
        name = name + "_lib",
        srcs = srcs,
        deps = deps + [":fuzz_support"],
        alwayslink = True,
    )
    native.cc_binary(
        name = name,
        deps = [":" + name + "_lib"] + select({
            ":fuzzing": [],
            "//conditions:default": [":standalone_main"],
        }),
        linkopts = select({
            ":fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    regressions = native.glob(["regressions/%s/*" % name], allow_empty = True)
    native.cc_test(
        name = name + "_regression_test",
        size = size,
        deps = [":" + name + "_lib", ":standalone_main"],
        data = seeds + regressions,
        args = regression_args + seed_dirs +
               (["tests/fuzz/regressions/" + name] if regressions else []),
    )
