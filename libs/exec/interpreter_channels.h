// The reference interpreter's channels between kernels and its scheduler, over the runtime's
// (libs/runtime/channels.h): one rule of deadlock detection, with one set of messages,
// for the interpreter and for generated programs. Templates over the interpreter's value type.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "libs/exec/compare.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/program.h"
#include "libs/runtime/channels.h"

namespace t2s::channels {

// One FIFO of a channel (or of a FIFO register): a ring buffer that grows (doubling) up to the
// channel's capacity, so that large arrays of deep channels cost memory only for what they hold.
template <typename T>
struct Fifo {
  std::vector<T> ring;
  size_t head = 0, count = 0;
  int waiting_reader = -1, waiting_writer = -1;  // the blocked kernel (member index), if any

  void push(T v) {
    if (count == ring.size()) {
      std::vector<T> bigger(std::max<size_t>(4, ring.size() * 2));
      for (size_t i = 0; i < count; ++i) bigger[i] = ring[(head + i) % ring.size()];
      ring.swap(bigger);
      head = 0;
    }
    ring[(head + count) % ring.size()] = v;
    ++count;
  }
  T pop() {
    T v = ring[head];
    head = (head + 1) % ring.size();
    --count;
    return v;
  }
};

template <typename T>
struct ChannelState {
  const Channel* channel = nullptr;
  size_t capacity = 1;         // max(depth, 1) values per FIFO
  std::vector<Fifo<T>> fifos;  // Fortran order over `channel->dims`

  std::vector<int64_t> index_of(int64_t fifo) const {
    std::vector<int64_t> index;
    for (int64_t d : channel->dims) {
      index.push_back(fifo % d);
      fifo /= d;
    }
    return index;
  }
  // "channel 'ch'", or "channel 'ch' at (1, 0)" for one FIFO of an array of channels.
  std::string describe(int64_t fifo) const {
    std::string s = "channel '" + channel->name + "'";
    if (channel->dims.empty()) return s;
    return s + " at " + format_index(index_of(fifo));
  }
};

// Thrown to unwind a kernel thread that another thread has stopped (its error or a deadlock);
// not an error of its own.
using Stopped = t2s_rt::Stopped;

inline const SourceLoc* no_loc() {
  static const SourceLoc loc;
  return &loc;
}

template <typename T>
struct GroupMember : t2s_rt::Waiter {
  const ChannelState<T>* channel = nullptr;
  int64_t fifo = 0;
  const SourceLoc* loc = no_loc();
  std::exception_ptr error;
};

// The kernels of one concurrent run (a single kernel for a host kernel), and everything their
// threads share. All fields but `stop` are guarded by `mutex`.
template <typename T>
struct Group : t2s_rt::Scheduler<GroupMember<T>> {
  using Member = GroupMember<T>;

  std::mutex mutex;
  std::unique_ptr<Diagnostic> deadlock;

  // Called with `mutex` held when every unfinished member is blocked: `run-deadlock` at the
  // first blocked member's statement.
  void declare_deadlock() {
    const SourceLoc* loc = nullptr;
    for (const Member& m : this->members)
      if (m.blocked && !loc) loc = m.loc;
    std::string message =
        this->deadlock_message([](const Member& m) { return m.channel->describe(m.fifo); },
                               [](const Member& m) { return m.channel->channel->name; });
    deadlock = std::make_unique<Diagnostic>(loc ? *loc : *no_loc(), message, "run-deadlock");
    this->stop_all();
  }

  // Called with `mutex` held by the kernel that made `member`'s wait satisfiable.
  void wake(int member) { t2s_rt::Scheduler<Member>::wake(this->members[member]); }

  // Blocks `member` on FIFO `fifo_index` of `channel` until another kernel wakes it; throws
  // Stopped when the group stops (another kernel's error, or a deadlock this wait completes).
  void wait(std::unique_lock<std::mutex>& lock, int member, ChannelState<T>& channel,
            int64_t fifo_index, bool write, const SourceLoc* loc) {
    Member& m = this->members[member];
    const bool deadlocked = this->block(m, write);
    m.channel = &channel;
    m.fifo = fifo_index;
    m.loc = loc;
    Fifo<T>& f = channel.fifos[fifo_index];
    (write ? f.waiting_writer : f.waiting_reader) = member;
    if (deadlocked) {
      declare_deadlock();
      throw Stopped{};
    }
    this->sleep(lock, m);
  }

  // `member` has ended, with `error` or not.
  void finish(int member, std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(mutex);
    if (error) this->members[member].error = error;
    if (this->end(error != nullptr)) declare_deadlock();
  }
};

// `run-channel-leftover` when a channel in `used` (indices into `channels`) still holds values
// after its kernels finished; checked in `channels` order.
template <typename T>
void check_drained(const std::vector<ChannelState<T>>& channels, const std::set<int>& used) {
  for (int c : used) {
    const ChannelState<T>& state = channels[c];
    int64_t count = 0, first_fifo = -1;
    for (size_t f = 0; f < state.fifos.size(); ++f) {
      if (state.fifos[f].count == 0) continue;
      if (first_fifo < 0) first_fifo = static_cast<int64_t>(f);
      count += static_cast<int64_t>(state.fifos[f].count);
    }
    if (count == 0) continue;
    const std::vector<int64_t> first_index = state.index_of(first_fifo);
    throw Diagnostic(state.channel->loc,
                     t2s_rt::leftover_message(state.channel->name, count,
                                              state.channel->dims.empty() ? nullptr : &first_index),
                     "run-channel-leftover");
  }
}

}  // namespace t2s::channels
