// Execution: running compiled kernels (statements, the step budget, channels between kernels)
// and concurrent runs of device kernels on threads with large stacks.
#include <pthread.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>

#include "libs/exec/interpreter_internal.h"

namespace t2s {
namespace interp {

// Runs the whole kernel: fresh registers, the body, then the check that its FIFOs are empty
// and (when tracking) the registers' max_live.
void Exec::run_kernel() {
  for (RegisterState& r : regs_) r.allocate(track_);
  run(kernel_->body);
  for (const RegisterState& r : regs_) {
    for (size_t pe = 0; pe < r.fifos.size(); ++pe) {
      const size_t count = r.fifos[pe].count;
      if (count == 0) continue;
      throw Diagnostic(r.reg->loc,
                       "FIFO '" + r.reg->name + "' of PE " +
                           format_index(pe_index(r.reg->shape, static_cast<int64_t>(pe))) +
                           " still holds " + std::to_string(count) + " value" +
                           (count == 1 ? "" : "s") + " after kernel '" + kernel_->kernel->name +
                           "' finished",
                       "run-fifo-leftover");
    }
  }
  if (track_)
    for (const RegisterState& r : regs_) max_live_.emplace_back(r.reg->name, r.max_live());
}

void Exec::exec(const SNode* s) {
  step(s);
  switch (s->kind) {
    case Stmt::kFor: {
      const int64_t min = eval(s->a).i;
      const int64_t end = min + eval(s->b).i;
      Value& var = vars_[s->slot];
      for (int64_t v = min; v < end; ++v) {
        step(s);
        var.i = wrap_s(static_cast<uint64_t>(v), 32);
        run(s->body);
      }
      break;
    }
    case Stmt::kLet:
      if (s->lanes > 1)
        eval_vec(s->a, &vars_[s->slot]);  // fresh slots: the value cannot read them
      else
        vars_[s->slot] = eval(s->a);
      run(s->body);
      break;
    case Stmt::kIf:
      run(eval(s->a).u ? s->body : s->else_body);
      break;
    case Stmt::kProvide: {
      if (s->to_register) {
        provide_register(s);
        break;
      }
      if (s->lanes > 1) {
        scatter(s);
        break;
      }
      Storage& st = *storage_[s->slot];
      const int64_t i = element(st, s->args, true, s->loc);
      st.data[i] = eval(s->a);
      st.written[i] = 1;
      break;
    }
    case Stmt::kRealize: {
      Storage& st = *storage_[s->slot];
      for (size_t d = 0; d < st.dims(); ++d) {
        st.mins[d] = eval(s->args[d]).i;
        st.extents[d] = eval(s->extents[d]).i;
      }
      st.allocate(*s->loc);
      run(s->body);
      break;
    }
    case Stmt::kWriteChannel:
      write_channel(s);
      break;
    case Stmt::kShift:
      shift(s);
      break;
    case Stmt::kPush:
      push(s);
      break;
    case Stmt::kAlloc:
      throw InternalError("interpreter: alloc statements are not supported yet");
  }
}

void Exec::refill(const SNode* s) {
  if (group_ && group_->stop.load(std::memory_order_relaxed)) throw Stopped{};
  uint64_t left = run_.steps_left.load();
  uint64_t take;
  do {
    if (left == 0)
      throw Diagnostic(*s->loc,
                       "the run exceeded its limit of " + std::to_string(run_.max_steps) +
                           " steps (statement executions)",
                       "run-step-limit");
    take = std::min(left, kStepChunk);
  } while (!run_.steps_left.compare_exchange_weak(left, left - take));
  budget_ = take;
}

int64_t Exec::fifo_index(const ChannelState& c, const std::vector<const Node*>& args,
                         size_t first) {
  int64_t index[kMaxDims];
  const size_t dims = c.channel->dims.size();
  for (size_t d = 0; d < dims; ++d) index[d] = eval(args[first + d]).i;
  int64_t linear = 0, stride = 1;
  for (size_t d = 0; d < dims; ++d) {
    if (index[d] < 0 || index[d] >= c.channel->dims[d])
      // Hand-written or edited IR can index a channel array anywhere: the user's error.
      throw Diagnostic(c.channel->loc,
                       "index " + format_index(std::vector<int64_t>(index, index + dims)) +
                           " of channel '" + c.channel->name + "' is outside its dimensions " +
                           format_index(c.channel->dims),
                       "run-channel-index");
    linear += index[d] * stride;
    stride *= c.channel->dims[d];
  }
  return linear;
}

Value Exec::read_channel(const Node* n) {
  ChannelState& c = run_.channels[n->slot];
  const int64_t fi = fifo_index(c, n->args, 1);
  Fifo& f = c.fifos[fi];
  std::unique_lock<std::mutex> lock(group_->mutex);
  while (f.count == 0) group_->wait(lock, member_, c, fi, false, n->loc);
  Value v = f.pop();
  if (f.waiting_writer >= 0) {
    group_->wake(f.waiting_writer);
    f.waiting_writer = -1;
  }
  return v;
}

void Exec::write_channel(const SNode* s) {
  if (s->a->lanes > 1) return write_channel_vec(s);
  ChannelState& c = run_.channels[s->slot];
  const int64_t fi = fifo_index(c, s->args, 0);
  const Value v = eval(s->a);
  Fifo& f = c.fifos[fi];
  std::unique_lock<std::mutex> lock(group_->mutex);
  while (f.count >= c.capacity) group_->wait(lock, member_, c, fi, true, s->loc);
  f.push(v);
  if (f.waiting_reader >= 0) {
    group_->wake(f.waiting_reader);
    f.waiting_reader = -1;
  }
}

// A joinable thread with a large stack (pthreads: std::thread cannot set the stack size).
class Thread {
 public:
  explicit Thread(std::function<void()> body) : body_(std::move(body)) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    int rc = EAGAIN;
    // Fall back to smaller stacks where address space or overcommit is scarce.
    for (size_t bytes : {kStackBytes, kStackBytes / 8, size_t{8} << 20}) {
      pthread_attr_setstacksize(&attr, bytes);
      rc = pthread_create(&id_, &attr, &Thread::entry, this);
      if (rc == 0) break;
    }
    pthread_attr_destroy(&attr);
    if (rc != 0)
      throw std::runtime_error(std::string("interpreter: cannot start a thread: ") +
                               std::strerror(rc));
  }
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  void join() { pthread_join(id_, nullptr); }

 private:
  static void* entry(void* self) {
    static_cast<Thread*>(self)->body_();
    return nullptr;
  }
  std::function<void()> body_;
  pthread_t id_;
};

// Runs `body` on a thread with a large stack and rethrows what it throws.
void run_with_large_stack(const std::function<void()>& body) {
  std::exception_ptr error;
  Thread t([&] {
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
  });
  t.join();
  if (error) std::rethrow_exception(error);
}

void run_group(RunState& run, const Program& program, const std::vector<CompiledKernel>& compiled,
               size_t first, size_t last, std::map<std::string, int64_t>* max_live) {
  Group group;
  const int n = static_cast<int>(last - first);
  for (size_t k = first; k < last; ++k) {
    group.members.emplace_back();
    group.members.back().name = compiled[k].kernel->name;
  }
  group.active = n;

  // Verified IR: no kernel of the run writes a buffer another uses, and each channel has one
  // reader and one writer kernel (libs/ir/program_facts.h), which wakes a blocked kernel.

  std::vector<std::unique_ptr<Exec>> execs;
  for (int m = 0; m < n; ++m)
    execs.push_back(std::make_unique<Exec>(run, &compiled[first + m], &group, m));
  std::vector<std::unique_ptr<Thread>> threads;
  try {
    for (int m = 0; m < n; ++m) {
      threads.push_back(std::make_unique<Thread>([&, m] {
        std::exception_ptr error;
        try {
          execs[m]->run_kernel();
        } catch (const Stopped&) {
        } catch (...) {
          error = std::current_exception();
        }
        group.finish(m, error);
      }));
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(group.mutex);
      group.active -= n - static_cast<int>(threads.size());
      group.stop_all();
    }
    for (auto& t : threads) t->join();
    throw;
  }
  for (auto& t : threads) t->join();
  if (max_live)
    for (const auto& exec : execs)
      for (const auto& [name, live] : exec->max_live()) (*max_live)[name] = live;
  execs.clear();  // returns unused steps

  for (const Group::Member& m : group.members)
    if (m.error) std::rethrow_exception(m.error);
  if (group.deadlock) throw *group.deadlock;

  std::set<int> used;
  for (size_t k = first; k < last; ++k) {
    for (const std::set<size_t>* channels :
         {&compiled[k].accesses.channels_read, &compiled[k].accesses.channels_written})
      for (size_t c : *channels) used.insert(static_cast<int>(c));
  }
  channels::check_drained(run.channels, used);  // program.channels order
}
}  // namespace interp
}  // namespace t2s
