// Internal to libs/poly: the isl contexts. A question (poly.cc) owns a Context for its length;
// the sets and relations of relations.h, which outlive any one call, share one through
// shared_context(), each holding it, so that it lives as long as the last of them and no
// longer (isl frees no context that an object still refers to).
#pragma once

#include <isl/cpp.h>
#include <isl/ctx.h>
#include <isl/options.h>

#include <memory>

#include "libs/ir/diagnostic.h"

namespace t2s::poly {

// Owns one isl context; isl reports errors through the C++ bindings' exceptions.
class Context {
 public:
  Context() : ctx_(isl_ctx_alloc()) {
    if (!ctx_) throw InternalError("poly: cannot allocate an isl context");
    isl_options_set_on_error(ctx_, ISL_ON_ERROR_CONTINUE);
  }
  ~Context() { isl_ctx_free(ctx_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  isl::ctx get() const { return isl::ctx(ctx_); }

 private:
  isl_ctx* ctx_;
};

// The context every live object of relations.h uses: the same one while any of them lives (isl
// combines only objects of one context), a new one after the last has gone. One thread at a
// time, as everywhere in the tools.
inline std::shared_ptr<const Context> shared_context() {
  static std::weak_ptr<const Context> live;
  std::shared_ptr<const Context> ctx = live.lock();
  if (!ctx) {
    ctx = std::make_shared<const Context>();
    live = ctx;
  }
  return ctx;
}

}  // namespace t2s::poly
