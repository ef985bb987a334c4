// channels.h: bounded FIFO channels between kernel threads, and the scheduler (Threads) that
// runs a group of kernels and detects deadlock exactly.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "libs/runtime/array.h"
#include "libs/runtime/common.h"
#include "libs/runtime/vector.h"

namespace t2s_rt {

// ---------------------------------------------------------------------------------------------
// Channels and the kernel scheduler
//
// One mutex guards every FIFO and the state of the running group, as in the interpreter: a
// kernel blocks only while holding it, and the group counts its blocked kernels under it, so
// deadlock is detected exactly when every unfinished kernel waits (never by a timeout).

namespace detail {

inline std::mutex& channel_mutex() {
  static std::mutex m;
  return m;
}

// The rule of deadlock detection, which the reference interpreter's scheduler shares
// (libs/exec/interpreter_channels.h): under the channels' one mutex a group counts its unfinished
// (`active`) and its blocked kernels, and deadlock is exactly every unfinished kernel blocked,
// checked when a kernel blocks and when one finishes. A woken kernel counts as running from the
// moment it is woken, not when it is scheduled.
struct Waiter {
  std::string name;  // the kernel's
  bool blocked = false;
  bool wants_write = false;
  std::condition_variable cv;
};

// The counting of a group of kernels M (each a Waiter). Every call but the constructor is made
// with the channels' mutex held.
template <typename M>
struct Scheduler {
  std::deque<M> members;  // list order; a deque so that members do not move
  int active = 0;
  int blocked = 0;
  std::atomic<bool> stop{false};

  void stop_all() {
    stop = true;
    for (M& m : members) m.cv.notify_all();
  }
  // Marks `m` blocked (throws Stopped once the group has stopped); true when that leaves every
  // unfinished kernel blocked: the caller reports the deadlock, then throws Stopped.
  bool block(M& m, bool write) {
    if (stop) throw Stopped{};
    m.blocked = true;
    m.wants_write = write;
    ++blocked;
    return blocked == active;
  }
  // Sleeps until another kernel wakes `m`; throws Stopped when the group stops instead.
  void sleep(std::unique_lock<std::mutex>& lock, M& m) {
    m.cv.wait(lock, [&] { return !m.blocked || stop.load(); });
    if (stop) throw Stopped{};
  }
  // Called by the kernel that made `m`'s wait satisfiable.
  void wake(M& m) {
    m.blocked = false;
    --blocked;
    m.cv.notify_one();
  }
  // A kernel has ended (`failed`: with an error, which stops the others); true when the others
  // are left deadlocked: the caller reports it.
  bool end(bool failed) {
    --active;
    if (failed) {
      if (!stop) stop_all();
      return false;
    }
    return !stop && active > 0 && blocked == active;
  }
  // `deadlock: every unfinished kernel is blocked: kernel 'C' waits to read from channel 'ch'
  // (empty); ...`, with describe(m) naming the channel (and element) that m waits on and
  // channel(m) the channel alone. When one channel is full at an element while its reader
  // waits at another, the two ends visit its elements in different orders, further apart than
  // its depth: the message says so and how to deepen it.
  template <typename Describe, typename ChannelName>
  std::string deadlock_message(Describe describe, ChannelName channel) const {
    std::string message = "deadlock: every unfinished kernel is blocked: ";
    bool first = true;
    for (const M& m : members) {
      if (!m.blocked) continue;
      if (!first) message += "; ";
      first = false;
      message += "kernel '" + m.name + "' waits to " +
                 (m.wants_write ? "write to " : "read from ") + describe(m) +
                 (m.wants_write ? " (full)" : " (empty)");
    }
    for (const M& w : members) {
      if (!w.blocked || !w.wants_write) continue;
      for (const M& r : members)
        if (r.blocked && !r.wants_write && channel(r) == channel(w))
          return message + ". Channel '" + channel(w) + "' is full at one element while '" +
                 r.name +
                 "' waits to read another: its ends visit the elements in different orders, "
                 "further apart than the channel's depth; a deeper channel lets both run (" +
                 w.name + ".min_depth(N), N the values one element must hold)";
    }
    return message;
  }
};

// `channel 'ch' still holds 2 unread values after its kernels finished`, and `, the first at
// (1, 0)` for an array of channels (`first_index` non-null).
inline std::string leftover_message(const std::string& name, int64_t count,
                                    const std::vector<int64_t>* first_index) {
  std::string message = "channel '" + name + "' still holds " + std::to_string(count) +
                        " unread value" + (count == 1 ? "" : "s") + " after its kernels finished";
  if (first_index) message += ", the first at " + format_index(*first_index);
  return message;
}

class FifoBase;
struct Group;

struct Member : Waiter {
  Group* group = nullptr;
  // An Intel autorun kernel: it restarts when it returns, and the group ends without it once
  // the other kernels have finished and every daemon waits to read (Threads::add).
  bool daemon = false;
  const FifoBase* fifo = nullptr;
  bool failed = false;
  std::string error;
};

struct Group : Scheduler<Member> {
  std::string deadlock;

  inline void declare_deadlock();
  void finish(Member& m, bool failed, const std::string& error) {
    std::lock_guard<std::mutex> lock(channel_mutex());
    if (failed) {
      m.failed = true;
      m.error = error;
    }
    if (end(failed)) declare_deadlock();
  }
};

class FifoBase {
 public:
  FifoBase(std::string name, std::vector<int64_t> index)
      : name_(std::move(name)), index_(std::move(index)) {}
  FifoBase(const FifoBase&) = delete;
  FifoBase& operator=(const FifoBase&) = delete;

  // "channel 'ch'", or "channel 'ch' at (1, 0)" for one FIFO of an array of channels.
  std::string describe() const {
    std::string s = "channel '" + name_ + "'";
    if (index_.empty()) return s;
    return s + " at " + format_index(index_);
  }
  const std::string& name() const { return name_; }
  const std::vector<int64_t>& index() const { return index_; }

 protected:
  // Blocks the calling kernel on this FIFO until the kernel at the other end wakes it. Called
  // with channel_mutex() held (by `lock`). Throws Stopped when the group stops.
  // The first kSpins attempts of one read or write only yield the processor and return (the
  // caller checks again): the kernel at the other end usually makes room or data within
  // microseconds, and a sleep and a wake cost two context switches. A yielding kernel counts as
  // running; it blocks (and deadlock detection sees it) once its attempts are spent.
  static constexpr int kSpins = 64;
  void wait(std::unique_lock<std::mutex>& lock, bool write, int attempt) {
    if (attempt < kSpins && current_member) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      if (current_member->group->stop) throw Stopped{};
      return;
    }
    Member* m = current_member;
    if (!m) {
      // Not inside a Threads group: no other kernel can ever make room or data.
      lock.unlock();
      fail(std::string("deadlock: the main thread waits to ") +
           (write ? "write to " : "read from ") + describe() + (write ? " (full)" : " (empty)") +
           " outside any group of kernels");
    }
    Group& g = *m->group;
    const bool deadlocked = g.block(*m, write);
    m->fifo = this;
    (write ? waiting_writer_ : waiting_reader_) = m;
    // A stopped kernel is no longer waiting: a FIFO used again after its group ended must not
    // wake a member of that ended group (ASan found it in runtime_test).
    Member*& waiting = write ? waiting_writer_ : waiting_reader_;
    if (deadlocked) {
      g.declare_deadlock();
      waiting = nullptr;
      throw Stopped{};
    }
    try {
      g.sleep(lock, *m);
    } catch (const Stopped&) {
      if (waiting == m) waiting = nullptr;
      throw;
    }
  }
  void wake_writer() {
    if (waiting_writer_) {
      waiting_writer_->group->wake(*waiting_writer_);
      waiting_writer_ = nullptr;
    }
  }
  void wake_reader() {
    if (waiting_reader_) {
      waiting_reader_->group->wake(*waiting_reader_);
      waiting_reader_ = nullptr;
    }
  }

 private:
  std::string name_;
  std::vector<int64_t> index_;
  Member* waiting_reader_ = nullptr;
  Member* waiting_writer_ = nullptr;
};

inline void Group::declare_deadlock() {
  // Every unfinished kernel waits. When they are all daemons waiting for data, nothing is
  // left to send them any: the group has ended.
  bool daemons_idle = true;
  for (const Member& m : members)
    if (m.blocked && (!m.daemon || m.wants_write)) daemons_idle = false;
  if (daemons_idle) {
    stop_all();
    return;
  }
  deadlock = deadlock_message([](const Member& m) { return m.fifo->describe(); },
                              [](const Member& m) { return m.fifo->name(); });
  stop_all();
}

}  // namespace detail

// A bounded FIFO channel between two kernel threads: room for `capacity` values (generated code
// passes max(depth, 1), as the interpreter does). read() blocks while it is empty, write() while
// it is full; a wait that can never end is reported as a deadlock by the running Threads group.
template <typename T>
class Fifo : public detail::FifoBase {
 public:
  // `name` is the channel's; `index` the position in an array of channels (empty for one).
  Fifo(std::string name, int64_t capacity, std::vector<int64_t> index = {})
      : FifoBase(std::move(name), std::move(index)),
        capacity_(static_cast<size_t>(std::max<int64_t>(capacity, 1))) {}

  T read() {
    return read([](T&) {});
  }
  void write(const T& value) {
    write(value, [](T&) {});
  }
  // read() and write() that call `on_move(value)` under the channel lock as the value leaves or
  // enters the FIFO: the OpenCL executor's profile stamps values with cycles there
  // (opencl_cpu.cc), in the order the values move.
  template <typename OnMove>
  T read(OnMove&& on_move) {
    std::unique_lock<std::mutex> lock(detail::channel_mutex());
    for (int attempt = 0; values_.empty(); ++attempt) wait(lock, false, attempt);
    T value = std::move(values_.front());
    values_.pop_front();
    on_move(value);
    wake_writer();
    return value;
  }
  template <typename OnMove>
  void write(T value, OnMove&& on_move) {
    std::unique_lock<std::mutex> lock(detail::channel_mutex());
    for (int attempt = 0; values_.size() >= capacity_; ++attempt) wait(lock, true, attempt);
    on_move(value);
    values_.push_back(std::move(value));
    wake_reader();
  }

  size_t capacity() const { return capacity_; }
  // Values written and not yet read.
  size_t size() const {
    std::lock_guard<std::mutex> lock(detail::channel_mutex());
    return values_.size();
  }

  // "" when empty, else `channel 'ch' still holds 2 unread values after its kernels finished`
  // (counting lanes: a vector of 4 lanes is 4 values, as the interpreter counts).
  std::string leftover_message() const {
    size_t count = size();
    if (count == 0) return "";
    return detail::leftover_message(name(), static_cast<int64_t>(count) * LanesOf<T>::value,
                                    nullptr);
  }

 private:
  size_t capacity_;
  std::deque<T> values_;
};

// An array of channels (Channel.dims non-empty): one Fifo per index, Fortran order over `dims`.
template <typename T>
class FifoArray {
 public:
  FifoArray(std::string name, std::vector<int64_t> dims, int64_t capacity)
      : name_(std::move(name)), dims_(std::move(dims)) {
    int64_t count = 1;
    for (int64_t d : dims_) {
      if (d < 1 || count > (int64_t{1} << 24) / d)
        fail("channel '" + name_ + "' has bad dims " + detail::format_index(dims_));
      count *= d;
    }
    fifos_.reserve(static_cast<size_t>(count));
    for (int64_t f = 0; f < count; ++f) {
      std::vector<int64_t> index;
      int64_t rest = f;
      for (int64_t d : dims_) {
        index.push_back(rest % d);
        rest /= d;
      }
      fifos_.push_back(std::make_unique<Fifo<T>>(name_, capacity, std::move(index)));
    }
  }

  // The FIFO at `index` (one entry per dimension); fail()s outside the dims.
  template <size_t N>
  Fifo<T>& at(const int64_t (&index)[N]) {
    return at(index, N);
  }
  Fifo<T>& at(const int64_t* index, size_t n) {
    if (n != dims_.size())
      fail("channel '" + name_ + "' indexed with " + std::to_string(n) + " indices; it has " +
           std::to_string(dims_.size()) + " dimensions");
    int64_t linear = 0, stride = 1;
    for (size_t d = 0; d < n; ++d) {
      if (index[d] < 0 || index[d] >= dims_[d])
        fail("index " + detail::format_index(index, n) + " of channel '" + name_ +
             "' is outside its dimensions " + detail::format_index(dims_));
      linear += index[d] * stride;
      stride *= dims_[d];
    }
    return *fifos_[static_cast<size_t>(linear)];
  }
  // The FIFO at a linear (Fortran order) index t2s-emit proved inside the dims.
  Fifo<T>& at_linear(int64_t linear) { return *fifos_[static_cast<size_t>(linear)]; }

  // "" when every FIFO is empty, else `channel 'ch' still holds 2 unread values after its
  // kernels finished, the first at (1, 0)`.
  std::string leftover_message() const {
    int64_t count = 0;
    const Fifo<T>* first = nullptr;
    for (const auto& f : fifos_) {
      size_t n = f->size();
      if (n == 0) continue;
      if (!first) first = f.get();
      count += static_cast<int64_t>(n) * LanesOf<T>::value;
    }
    if (count == 0) return "";
    return detail::leftover_message(name_, count, dims_.empty() ? nullptr : &first->index());
  }

 private:
  std::string name_;
  std::vector<int64_t> dims_;
  std::vector<std::unique_ptr<Fifo<T>>> fifos_;
};

// Fails when a channel still holds values after its group of kernels has finished.
template <typename C>
void check_drained(const C& channel) {
  std::string message = channel.leftover_message();
  if (!message.empty()) fail(message);
}

// Runs a group of kernels concurrently, one std::thread each (a group of one runs on the calling
// thread), connected by Fifos. Detects deadlock exactly; an error (fail()) in one kernel stops
// the others. No thread outlives run().
class Threads {
 public:
  // `daemon`: an Intel autorun kernel, run again each time it returns; the group ends without
  // it when every other kernel has finished and every daemon waits to read a channel.
  Threads& add(std::string kernel, std::function<void()> body, bool daemon = false) {
    kernels_.push_back({std::move(kernel), std::move(body), daemon});
    return *this;
  }

  // Runs every kernel to its end and returns "" on success, else the error to report: the
  // first failed kernel's message in list order, else the deadlock, as the interpreter reports
  // them (`deadlock: every unfinished kernel is blocked: kernel 'C' waits to read from channel
  // 'ch' (empty); ...`). Does not exit.
  std::string run_and_report() {
    if (kernels_.empty()) return "";
    detail::Group group;
    for (const auto& k : kernels_) {
      group.members.emplace_back();
      group.members.back().name = k.name;
      group.members.back().group = &group;
      group.members.back().daemon = k.daemon;
    }
    group.active = static_cast<int>(kernels_.size());
    auto body = [&](size_t k) {
      detail::Member& m = group.members[k];
      detail::Member* saved = detail::current_member;
      detail::current_member = &m;
      bool failed = false;
      std::string error;
      try {
        do {
          kernels_[k].body();
        } while (kernels_[k].daemon);
      } catch (const detail::Stopped&) {
      } catch (const detail::KernelFailure& f) {
        failed = true;
        error = f.message;
      } catch (const std::bad_alloc&) {
        failed = true;
        error = "out of memory in kernel '" + m.name + "'";
      } catch (const std::exception& e) {
        failed = true;
        error = "kernel '" + m.name + "': " + e.what();
      } catch (...) {
        failed = true;
        error = "kernel '" + m.name + "' failed";
      }
      detail::current_member = saved;
      group.finish(m, failed, error);
    };
    if (kernels_.size() == 1) {
      body(0);
    } else {
      std::vector<std::thread> threads;
      std::string start_error;
      for (size_t k = 0; k < kernels_.size(); ++k) {
        try {
          threads.emplace_back(body, k);
        } catch (const std::system_error& e) {
          start_error = std::string("cannot start a thread: ") + e.what();
          std::lock_guard<std::mutex> lock(detail::channel_mutex());
          group.active -= static_cast<int>(kernels_.size() - k);
          group.stop_all();
          break;
        }
      }
      for (std::thread& t : threads) t.join();
      if (!start_error.empty()) return start_error;
    }
    for (const detail::Member& m : group.members)
      if (m.failed) return m.error;
    return group.deadlock;
  }

  // run_and_report(), and fail() with its message on error.
  void run() {
    std::string message = run_and_report();
    if (!message.empty()) fail(message);
  }

 private:
  struct Kernel {
    std::string name;
    std::function<void()> body;
    bool daemon = false;
  };
  std::vector<Kernel> kernels_;
};

// The rules other layers call (libs/exec, libs/cli, the OpenCL executor): their public names.
using detail::leftover_message;
using detail::Scheduler;
using detail::Waiter;

}  // namespace t2s_rt
