cc_library(
    name = "preprocessor",
    srcs = [
        "lexer.cc",
        "preprocessor.cc",
        "token.cc",
    ],
    hdrs = [
        "lexer.h",
        "preprocessor.h",
        "token.h",
    ],
    visibility = ["//visibility:public"],
    deps = ["//libs/ir:diagnostic"],
)

cc_test(
    name = "preprocessor_test",
    srcs = ["preprocessor_test.cc"],
    deps = [
        ":preprocessor",
        "@gtest//:gtest_main",
    ],
)
