"""The repositories t2s's tools build against, for a workspace that uses t2s as an external
repository (docs/pipelines.md):

    local_repository(name = "t2s", path = "/path/to/t2s")
    load("@t2s//pipelines:deps.bzl", "t2s_dependencies")
    t2s_dependencies()

They are the Debian-installed system libraries, as in t2s's own WORKSPACE (scripts/setup
installs the packages); nothing is downloaded. A repository the workspace already defines is
left alone. Bazel 4's own repositories (rules_cc, platforms, bazel_skylib, rules_java,
remote_coverage_tools) are the workspace's to define: see t2s's WORKSPACE for offline ones.
"""

def _system_library(name, path):
    if native.existing_rule(name) == None:
        native.new_local_repository(
            name = name,
            build_file = str(Label("//third_party:%s.BUILD" % name)),
            path = path,
        )

def t2s_dependencies():
    _system_library("nlohmann_json", "/usr/include/nlohmann")
    _system_library("cli11", "/usr/include/CLI")
    _system_library("isl", "/usr/include/isl")
    _system_library("gtest", "/usr/include/gtest")
