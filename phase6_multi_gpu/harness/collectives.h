// SPDX-License-Identifier: MIT
// 6.03's given machinery: the four collectives' names and buffer sizes, inputs whose sums are exact, and
// ranks as processes: one process per GPU (the form a launcher such as mpirun or Slurm starts), each
// started here by fork + exec of a worker program beside this one, talking to its parent over pipes.
// Every wait on a child has a deadline: a collective that deadlocks (a rank waiting for a peer that never
// joins) is reported and its processes killed, never hangs the caller. Children start with
// NCCL_NVLS_ENABLE=0 in their environment (NVLink multicast stays off; see the phase README).
// Given code, no exercise's answer: read it, use it.
#pragma once

#include <nccl.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "phase6_multi_gpu/harness/ranks.h"

namespace p6 {

enum class Collective : int { AllReduce = 0, ReduceScatter = 1, AllGather = 2, Broadcast = 3 };
constexpr Collective kCollectives[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                                       Collective::Broadcast};

const char* collective_name(Collective op);  // "all-reduce", "reduce-scatter", "all-gather", "broadcast"
const char* nccl_call(Collective op);        // "ncclAllReduce", ...

// NCCL's count convention, which 6.03 keeps: `count` is what each rank's buffer of ncclAllReduce and
// ncclBroadcast holds, ncclReduceScatter's recvcount (each rank's send holds n x count) and
// ncclAllGather's sendcount (each rank's recv holds n x count). Floats of rank's send and recv buffers:
std::size_t send_floats(Collective op, std::size_t count, int ranks);
std::size_t recv_floats(Collective op, std::size_t count, int ranks);
// Bytes as nccl-tests' "size" column counts them: the larger of the two buffers of one rank.
double collective_bytes(Collective op, std::size_t count, int ranks);

// Rank r's input: a[i] x 8^r with a[i] in {1, 2, 3} (from the seed): sums over 8 ranks are exact in float,
// and a value's base-8 digits tell which ranks contributed.
std::vector<float> collective_input(int rank, std::size_t floats, std::uint64_t seed);
// What a rank's output buffer (recv) and its input buffer (send) hold before the call: per rank, never a
// sum of inputs.
float collective_recv_poison(int rank);
float collective_send_poison(int rank);

// One collective to run: the operation, `count` as above, the root (broadcast), in place or not, the seed.
struct CollectiveJob {
  Collective op = Collective::AllReduce;
  std::size_t count = 0;
  int root = 0;
  bool in_place = false;
  std::uint64_t seed = 1;
};

// The buffers of rank r before the call, as the worker fills them, and where the result is read:
// out of place: send = input, recv = poison; in place, one buffer of max(send, recv) floats where NCCL
// expects it (all-gather: the input at block r, poison elsewhere; reduce-scatter: the whole input, the
// result read at block r).
struct RankLayout {
  std::vector<float> send;    // empty in place
  std::vector<float> recv;    // the one buffer in place
  std::size_t result_at = 0;  // where the result starts in recv
  std::size_t result_floats = 0;
};
RankLayout rank_layout(const CollectiveJob& job, int rank, int ranks);
// What rank's result (recv from result_at, result_floats of them) must be: exact.
std::vector<float> expected_result(const CollectiveJob& job, int rank, int ranks);

// 6.03's lesson options beyond the common ones (its own main takes them out of argv first):
// --net-gbps G, the network bandwidth per GPU in Gb/s (default 400), and --net-us U, one network hop's
// latency in microseconds (default 5), for the all-reduce model past one host.
struct NetworkModelOptions {
  double gbps = 400.0;
  double hop_us = 5.0;
};
NetworkModelOptions& network_model_options();

// ---- ranks as processes --------------------------------------------------------------------------------

// "<folder of this program>/<name>"; throws with what to build when it is missing.
std::string program_beside_this_one(const std::string& name);

// Thrown by RankProcesses when a child did not answer before the deadline.
struct RankTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RankProcesses {
 public:
  // Starts one child per entry of `args`: `program args[r]...`, its stdin a pipe from this process, its fd 3 a
  // pipe back; stdout and stderr shared with this process. `timeout_s` bounds every receive().
  RankProcesses(const std::string& program, const std::vector<std::vector<std::string>>& args, double timeout_s);
  ~RankProcesses();  // closes the pipes, waits for each child a few seconds, then kills it
  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;

  int size() const { return static_cast<int>(children_.size()); }
  // Writes to child r's stdin (throws when it has gone).
  void send(int r, const void* data, std::size_t bytes);
  // Reads exactly `bytes` from child r's fd 3 (throws RankTimeout past the deadline, runtime_error when it ended).
  void receive(int r, void* data, std::size_t bytes);
  // SIGKILL to every child still running, then waits for them.
  void kill_all();

 private:
  struct Child {
    pid_t pid = -1;
    int to = -1, from = -1;
  };
  std::vector<Child> children_;
  double timeout_s_;
  std::string program_;
};

// In a worker: the fds of the parent's pipes.
constexpr int kFromParentFd = 0;
constexpr int kToParentFd = 3;
// Blocking whole reads and writes on a pipe (false at end of file or on error).
bool read_all(int fd, void* data, std::size_t bytes);
bool write_all(int fd, const void* data, std::size_t bytes);

// ---- the collective worker -------------------------------------------------------------------------

// What a worker runs: the exercise's functions (or a grader's planted ones).
struct CollectiveEngine {
  // One communicator per rank of a real group, all in this process.
  std::vector<ncclComm_t> (*comms_one_process)(const RankGroup& group);
  // Every rank's collective, in this process.
  void (*collective)(Collective op, const float* const* send, float* const* recv, std::size_t count, int root,
                     const std::vector<ncclComm_t>& comms, const RankGroup& group);
  // In a process of its own: joins the communicator as `rank` of `ranks` (the unique id arrives on `from_parent`).
  ncclComm_t (*join_as_rank)(int rank, int ranks, int from_parent);
  // One rank's part of a collective (no group needed when a process drives one GPU).
  void (*issue)(Collective op, const float* send, float* recv, std::size_t count, int root, ncclComm_t comm,
                cudaStream_t stream);
};

// A worker's main: `--all N` (one process drives GPUs 0 .. N-1) or `--rank R --ranks N` (this process is
// rank R on GPU R). Reads jobs from stdin, runs them, answers on fd 3 until stdin closes. Returns the exit code.
int serve_collectives(int argc, char** argv, const CollectiveEngine& engine);

// The parent's side: a worker for every rank (or one for all), jobs sent, outputs read back.
class CollectiveWorkers {
 public:
  // One process for all `ranks` GPUs (per_process false) or one per GPU; `program` is the worker's name
  // beside this program. With per_process, start() returns and the caller must send every child the
  // unique id (the exercise's nccl_share_unique_id) before the first run().
  CollectiveWorkers(const std::string& program, int ranks, bool per_process, double timeout_s);
  RankProcesses& processes() { return *processes_; }
  int ranks() const { return ranks_; }
  // Runs the job on every rank; outputs[r] is rank r's whole recv buffer (as rank_layout places it).
  // Throws RankTimeout (a deadlock, or far too slow), runtime_error with the worker's message.
  std::vector<std::vector<float>> run(const CollectiveJob& job);

 private:
  int ranks_;
  bool started_ = false;
  std::unique_ptr<RankProcesses> processes_;
};

}  // namespace p6
