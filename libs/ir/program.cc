#include "libs/ir/program.h"

namespace t2s {

namespace {
const char* const kStageNames[] = {"parsed", "merged", "stt", "vectorized", "gathered"};
const char* const kLoopKindNames[] = {"serial", "unrolled", "vectorized"};
}  // namespace

const char* stage_name(Stage s) { return kStageNames[static_cast<int>(s)]; }

bool stage_from_name(const std::string& name, Stage* out) {
  for (int i = 0; i < 5; ++i) {
    if (name == kStageNames[i]) {
      *out = static_cast<Stage>(i);
      return true;
    }
  }
  return false;
}

const char* loop_kind_name(LoopKind k) { return kLoopKindNames[static_cast<int>(k)]; }

bool loop_kind_from_name(const std::string& name, LoopKind* out) {
  for (int i = 0; i < 3; ++i) {
    if (name == kLoopKindNames[i]) {
      *out = static_cast<LoopKind>(i);
      return true;
    }
  }
  return false;
}

const Func* Program::find_func(const std::string& name) const {
  for (const Func& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

Func* Program::find_func(const std::string& name) {
  for (Func& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

const Input* Program::find_input(const std::string& name) const {
  for (const Input& i : inputs)
    if (i.name == name) return &i;
  return nullptr;
}

const Channel* Program::find_channel(const std::string& name) const {
  for (const Channel& c : channels)
    if (c.name == name) return &c;
  return nullptr;
}

const Buffer* Program::find_buffer(const std::string& name) const {
  for (const Buffer& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

const Register* Program::find_register(const std::string& name) const {
  for (const Register& r : registers)
    if (r.name == name) return &r;
  return nullptr;
}

const char* register_kind_name(Register::Kind k) { return k == Register::kFifo ? "fifo" : "shift"; }

}  // namespace t2s
