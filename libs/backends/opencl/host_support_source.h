// The text of host_support.h, for the host programs the opencl backend writes: its code without
// its includes of the project's own headers (the program holds the runtime already).
#pragma once

// Generated from host_support.h by libs/runtime/embed.sh.
const char* t2s_opencl_host_support_source();
