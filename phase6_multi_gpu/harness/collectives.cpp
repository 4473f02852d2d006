// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/harness/collectives.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/buffer.h"
#include "common/check.h"
#include "common/data.h"
#include "phase6_multi_gpu/harness/nccl_support.h"

extern char** environ;

namespace p6 {

const char* collective_name(Collective op) {
  switch (op) {
    case Collective::AllReduce:
      return "all-reduce";
    case Collective::ReduceScatter:
      return "reduce-scatter";
    case Collective::AllGather:
      return "all-gather";
    case Collective::Broadcast:
      return "broadcast";
  }
  return "?";
}

const char* nccl_call(Collective op) {
  switch (op) {
    case Collective::AllReduce:
      return "ncclAllReduce";
    case Collective::ReduceScatter:
      return "ncclReduceScatter";
    case Collective::AllGather:
      return "ncclAllGather";
    case Collective::Broadcast:
      return "ncclBroadcast";
  }
  return "?";
}

std::size_t send_floats(Collective op, std::size_t count, int ranks) {
  return op == Collective::ReduceScatter ? count * static_cast<std::size_t>(ranks) : count;
}

std::size_t recv_floats(Collective op, std::size_t count, int ranks) {
  return op == Collective::AllGather ? count * static_cast<std::size_t>(ranks) : count;
}

double collective_bytes(Collective op, std::size_t count, int ranks) {
  return 4.0 * static_cast<double>(std::max(send_floats(op, count, ranks), recv_floats(op, count, ranks)));
}

std::vector<float> collective_input(int rank, std::size_t floats, std::uint64_t seed) {
  const std::vector<int> a = wb::random_ints(floats, seed + 7919 * static_cast<std::uint64_t>(rank) + 1, 1, 3);
  std::vector<float> x(floats);
  const double place = std::ldexp(1.0, 3 * rank);
  for (std::size_t i = 0; i < floats; ++i) x[i] = static_cast<float>(a[i] * place);
  return x;
}

float collective_recv_poison(int rank) {
  return -1e30f * static_cast<float>(rank + 1);
}

float collective_send_poison(int rank) {
  return -1e33f * static_cast<float>(rank + 1);
}

RankLayout rank_layout(const CollectiveJob& job, int rank, int ranks) {
  RankLayout layout;
  const std::size_t sends = send_floats(job.op, job.count, ranks), recvs = recv_floats(job.op, job.count, ranks);
  // Broadcast: only the root's input exists; the others' send buffers (never read) keep their poison.
  const bool has_input = job.op != Collective::Broadcast || rank == job.root;
  const std::vector<float> input =
      has_input ? collective_input(rank, sends, job.seed) : std::vector<float>(sends, collective_send_poison(rank));
  layout.result_floats = recvs;
  if (!job.in_place) {
    layout.send = input;
    layout.recv.assign(recvs, collective_recv_poison(rank));
    return layout;
  }
  layout.recv.assign(std::max(sends, recvs), collective_recv_poison(rank));
  const std::size_t block = job.count * static_cast<std::size_t>(rank);
  switch (job.op) {
    case Collective::AllGather:
      std::copy(input.begin(), input.end(), layout.recv.begin() + static_cast<std::ptrdiff_t>(block));
      break;
    case Collective::ReduceScatter:
      layout.recv = input;
      layout.result_at = block;
      break;
    case Collective::AllReduce:
    case Collective::Broadcast:
      if (has_input) layout.recv = input;
      break;
  }
  return layout;
}

std::vector<float> expected_result(const CollectiveJob& job, int rank, int ranks) {
  const std::size_t count = job.count;
  std::vector<float> out(recv_floats(job.op, count, ranks), 0.0f);
  switch (job.op) {
    case Collective::AllReduce:
    case Collective::ReduceScatter: {
      const std::size_t from = job.op == Collective::ReduceScatter ? count * static_cast<std::size_t>(rank) : 0;
      for (int q = 0; q < ranks; ++q) {
        const std::vector<float> in = collective_input(q, send_floats(job.op, count, ranks), job.seed);
        for (std::size_t i = 0; i < count; ++i) out[i] += in[from + i];
      }
      break;
    }
    case Collective::AllGather:
      for (int q = 0; q < ranks; ++q) {
        const std::vector<float> in = collective_input(q, count, job.seed);
        std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(count * static_cast<std::size_t>(q)));
      }
      break;
    case Collective::Broadcast:
      out = collective_input(job.root, count, job.seed);
      break;
  }
  return out;
}

NetworkModelOptions& network_model_options() {
  static NetworkModelOptions options;
  return options;
}

// ---- processes -----------------------------------------------------------------------------------------

std::string program_beside_this_one(const std::string& name) {
  char path[4096] = {0};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) throw std::runtime_error("cannot read /proc/self/exe to find " + name);
  std::string self(path, static_cast<std::size_t>(length));
  const std::string program = self.substr(0, self.rfind('/') + 1) + name;
  if (access(program.c_str(), X_OK) != 0)
    throw std::runtime_error("the rank worker " + program +
                             " is missing: build it with its exercise (e.g. `ninja 6.03`)");
  return program;
}

bool read_all(int fd, void* data, std::size_t bytes) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t got = read(fd, p, bytes);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    bytes -= static_cast<std::size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = write(fd, p, bytes);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    p += put;
    bytes -= static_cast<std::size_t>(put);
  }
  return true;
}

RankProcesses::RankProcesses(const std::string& program, const std::vector<std::vector<std::string>>& args,
                             double timeout_s)
    : timeout_s_(timeout_s), program_(program) {
  // A write to a child that has died must fail with EPIPE, not kill this process.
  signal(SIGPIPE, SIG_IGN);
  // The children's environment, made before fork (nothing but async-signal-safe calls after it): NVLink
  // multicast off whatever this process's environment says.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "NCCL_NVLS_ENABLE=", 17) != 0) env_strings.emplace_back(*e);
  env_strings.emplace_back("NCCL_NVLS_ENABLE=0");
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (const std::vector<std::string>& a : args) {
    std::vector<std::string> argv_strings = {program};
    argv_strings.insert(argv_strings.end(), a.begin(), a.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      // The child: its stdin from the parent, fd 3 back to it (dup2 clears close-on-exec), then exec: a
      // fresh process image, so CUDA starts anew (a forked child cannot use its parent's CUDA context).
      // (dup2 onto the same fd keeps close-on-exec: clear it there.)
      if (down[0] == kFromParentFd ? fcntl(down[0], F_SETFD, 0) < 0 : dup2(down[0], kFromParentFd) < 0) _exit(127);
      if (up[1] == kToParentFd ? fcntl(up[1], F_SETFD, 0) < 0 : dup2(up[1], kToParentFd) < 0) _exit(127);
      execve(program_.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    close(down[0]);
    close(up[1]);
    children_.push_back(Child{pid, down[1], up[0]});
  }
}

RankProcesses::~RankProcesses() {
  for (Child& c : children_) {
    if (c.to >= 0) close(c.to);
    c.to = -1;
  }
  // Closed stdin tells a worker to finish; give each a few seconds, then kill it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (Child& c : children_) {
    while (c.pid > 0) {
      int status = 0;
      const pid_t done = waitpid(c.pid, &status, WNOHANG);
      if (done == c.pid || done < 0) {
        c.pid = -1;
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        kill(c.pid, SIGKILL);
        waitpid(c.pid, &status, 0);
        c.pid = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (c.from >= 0) close(c.from);
    c.from = -1;
  }
}

void RankProcesses::kill_all() {
  for (Child& c : children_) {
    if (c.pid > 0) {
      kill(c.pid, SIGKILL);
      int status = 0;
      waitpid(c.pid, &status, 0);
      c.pid = -1;
    }
  }
}

void RankProcesses::send(int r, const void* data, std::size_t bytes) {
  const Child& c = children_.at(static_cast<std::size_t>(r));
  if (!write_all(c.to, data, bytes))
    throw std::runtime_error("rank " + std::to_string(r) + "'s process is gone (writing to it failed)");
}

void RankProcesses::receive(int r, void* data, std::size_t bytes) {
  Child& c = children_.at(static_cast<std::size_t>(r));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      kill_all();
      char text[160];
      std::snprintf(text, sizeof(text), "rank %d's process did not answer within %.0f s (killed)", r, timeout_s_);
      throw RankTimeout(text);
    }
    pollfd pfd{c.from, POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::min(left * 1000.0, 1000.0)) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t got = read(c.from, p, bytes);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      int status = 0;
      std::string how = "ended";
      if (c.pid > 0 && waitpid(c.pid, &status, 0) == c.pid) {
        c.pid = -1;
        how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
      }
      throw std::runtime_error("rank " + std::to_string(r) + "'s process " + how + " before it answered");
    }
    p += got;
    bytes -= static_cast<std::size_t>(got);
  }
}

// ---- the worker ------------------------------------------------------------------------------------------

namespace {

struct JobMessage {
  std::int32_t op, root, in_place, quit;
  std::uint64_t count, seed;
};

// One answer: status (0 ok), the message's length and text, then per rank its recv buffer's length and floats.
void answer(int status, const std::string& message, const std::vector<std::vector<float>>& outputs) {
  const std::int32_t s = status;
  const std::uint64_t length = message.size(), buffers = outputs.size();
  bool ok = write_all(kToParentFd, &s, sizeof(s)) && write_all(kToParentFd, &length, sizeof(length)) &&
            write_all(kToParentFd, message.data(), message.size()) && write_all(kToParentFd, &buffers, sizeof(buffers));
  for (const std::vector<float>& out : outputs) {
    const std::uint64_t floats = out.size();
    ok = ok && write_all(kToParentFd, &floats, sizeof(floats)) &&
         write_all(kToParentFd, out.data(), out.size() * sizeof(float));
  }
  if (!ok) std::exit(1);
}

std::vector<std::vector<float>> run_all(const CollectiveJob& job, const std::vector<ncclComm_t>& comms,
                                        const RankGroup& group, const CollectiveEngine& engine, std::string* guards) {
  const int n = group.size();
  std::vector<std::unique_ptr<wb::GuardedDeviceBuffer<float>>> sends, recvs;
  std::vector<const float*> send_ptrs;
  std::vector<float*> recv_ptrs;
  for (int r = 0; r < n; ++r) {
    const RankLayout layout = rank_layout(job, r, n);
    DeviceScope scope(group.device(r));
    recvs.push_back(std::make_unique<wb::GuardedDeviceBuffer<float>>(layout.recv.size()));
    recvs.back()->upload(layout.recv);
    if (!job.in_place) {
      sends.push_back(std::make_unique<wb::GuardedDeviceBuffer<float>>(layout.send.size()));
      sends.back()->upload(layout.send);
      send_ptrs.push_back(sends.back()->data());
    } else {
      send_ptrs.push_back(recvs.back()->data());  // in place: the same buffer (the exercise places the offsets)
    }
    recv_ptrs.push_back(recvs.back()->data());
  }
  engine.collective(job.op, send_ptrs.data(), recv_ptrs.data(), job.count, job.root, comms, group);
  group.synchronize();
  std::vector<std::vector<float>> outputs;
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(group.device(r));
    outputs.push_back(recvs[static_cast<std::size_t>(r)]->download());
    const wb::GuardReport report = recvs[static_cast<std::size_t>(r)]->check_guards();
    if (!report.ok() && guards->empty()) *guards = report.describe("rank " + std::to_string(r) + "'s output");
    if (!job.in_place) {
      const wb::GuardReport in = sends[static_cast<std::size_t>(r)]->check_guards();
      if (!in.ok() && guards->empty()) *guards = in.describe("rank " + std::to_string(r) + "'s input");
    }
  }
  return outputs;
}

}  // namespace

int serve_collectives(int argc, char** argv, const CollectiveEngine& engine) {
  disable_nvls();
  require_nvls_disabled();
  int all = 0, rank = -1, ranks = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (key == "--all") all = value;
    if (key == "--rank") rank = value;
    if (key == "--ranks") ranks = value;
  }
  if (all < 1 && (rank < 0 || ranks < 1 || rank >= ranks)) {
    std::fprintf(stderr, "usage: %s --all N | --rank R --ranks N (started by the 6.03 lesson and tests)\n", argv[0]);
    return 2;
  }
  try {
    std::unique_ptr<RankGroup> group;
    std::vector<ncclComm_t> comms;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    if (all > 0) {
      group = std::make_unique<RankGroup>(RankGroup::real(all));
      comms = engine.comms_one_process(*group);
      if (comms.size() != static_cast<std::size_t>(all))
        throw std::runtime_error("the one-process set-up returned " + std::to_string(comms.size()) +
                                 " communicators for " + std::to_string(all) + " GPUs");
    } else {
      comm = engine.join_as_rank(rank, ranks, kFromParentFd);
      if (comm == nullptr) throw std::runtime_error("rank " + std::to_string(rank) + " joined no communicator");
      CUDA_CHECK(cudaSetDevice(rank));
      CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    answer(0, "ready", {});
    for (;;) {
      JobMessage message{};
      if (!read_all(kFromParentFd, &message, sizeof(message)) || message.quit) break;
      CollectiveJob job{static_cast<Collective>(message.op), static_cast<std::size_t>(message.count), message.root,
                        message.in_place != 0, message.seed};
      std::string guards;
      std::vector<std::vector<float>> outputs;
      if (all > 0) {
        outputs = run_all(job, comms, *group, engine, &guards);
      } else {
        const RankLayout layout = rank_layout(job, rank, ranks);
        wb::GuardedDeviceBuffer<float> recv(layout.recv.size());
        recv.upload(layout.recv);
        std::unique_ptr<wb::GuardedDeviceBuffer<float>> send;
        if (!job.in_place) {
          send = std::make_unique<wb::GuardedDeviceBuffer<float>>(layout.send.size());
          send->upload(layout.send);
        }
        engine.issue(job.op, job.in_place ? recv.data() : send->data(), recv.data(), job.count, job.root, comm, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        outputs.push_back(recv.download());
        const wb::GuardReport report = recv.check_guards();
        if (!report.ok()) guards = report.describe("rank " + std::to_string(rank) + "'s output");
        if (send && guards.empty() && !send->check_guards().ok())
          guards = send->check_guards().describe("rank " + std::to_string(rank) + "'s input");
      }
      answer(guards.empty() ? 0 : 3, guards, outputs);
    }
    if (all > 0) {
      group->synchronize();
      for (std::size_t r = 0; r < comms.size(); ++r) {
        DeviceScope scope(group->device(static_cast<int>(r)));
        ncclCommDestroy(comms[r]);
      }
    } else {
      CUDA_CHECK(cudaStreamSynchronize(stream));
      ncclCommDestroy(comm);
      cudaStreamDestroy(stream);
    }
  } catch (const std::exception& e) {
    answer(1, e.what(), {});
    return 1;
  }
  return 0;
}

CollectiveWorkers::CollectiveWorkers(const std::string& program, int ranks, bool per_process, double timeout_s)
    : ranks_(ranks) {
  const std::string path = program_beside_this_one(program);
  std::vector<std::vector<std::string>> args;
  if (per_process) {
    for (int r = 0; r < ranks; ++r) args.push_back({"--rank", std::to_string(r), "--ranks", std::to_string(ranks)});
  } else {
    args.push_back({"--all", std::to_string(ranks)});
  }
  processes_ = std::make_unique<RankProcesses>(path, args, timeout_s);
}

namespace {

// Reads one answer of worker w: its status and message, then its buffers into `outputs`.
void read_answer(RankProcesses& processes, int w, std::vector<std::vector<float>>* outputs) {
  std::int32_t status = 0;
  std::uint64_t length = 0, buffers = 0;
  processes.receive(w, &status, sizeof(status));
  processes.receive(w, &length, sizeof(length));
  std::string message(length, '\0');
  if (length > 0) processes.receive(w, message.data(), length);
  processes.receive(w, &buffers, sizeof(buffers));
  for (std::uint64_t b = 0; b < buffers; ++b) {
    std::uint64_t floats = 0;
    processes.receive(w, &floats, sizeof(floats));
    std::vector<float> out(floats);
    if (floats > 0) processes.receive(w, out.data(), floats * sizeof(float));
    if (outputs) outputs->push_back(std::move(out));
  }
  if (status != 0) throw std::runtime_error("worker " + std::to_string(w) + ": " + message);
}

}  // namespace

std::vector<std::vector<float>> CollectiveWorkers::run(const CollectiveJob& job) {
  RankProcesses& p = *processes_;
  // The first run also reads each worker's "ready" (communicators made).
  static_assert(sizeof(JobMessage) == 32, "job message layout");
  if (!started_) {
    for (int w = 0; w < p.size(); ++w) read_answer(p, w, nullptr);
    started_ = true;
  }
  const JobMessage message{static_cast<std::int32_t>(job.op), job.root, job.in_place ? 1 : 0, 0, job.count, job.seed};
  for (int w = 0; w < p.size(); ++w) p.send(w, &message, sizeof(message));
  std::vector<std::vector<float>> outputs;
  for (int w = 0; w < p.size(); ++w) read_answer(p, w, &outputs);
  if (static_cast<int>(outputs.size()) != ranks_) throw std::runtime_error("a worker answered with too few buffers");
  return outputs;
}

}  // namespace p6
