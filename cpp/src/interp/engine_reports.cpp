// Reports of runs that cannot go on: a deadlock (every unfinished thread blocked, with what each
// waits for) and a call chain deeper than max_depth.
#include <algorithm>

#include "engine.hpp"
#include "parjava/error.hpp"

namespace parjava::interp {

using model::NodeIndex;

// ---- depth limit ----------------------------------------------------------------------------

// "main -> vcycle (mg.c:120) -> vcycle (mg.c:95) x 9999 -> ...": the calls on the thread's
// stack, then `next`, with repeated calls folded.
std::string Engine::call_chain(std::uint32_t ctx, NodeIndex next) const {
  std::vector<NodeIndex> sites;
  for (const ReturnEntry &r : call_stack_[ctx]) {
    sites.push_back(program_.code[r.pc - 1].node);
  }
  sites.push_back(next);
  std::vector<std::pair<NodeIndex, std::size_t>> runs;
  for (const NodeIndex s : sites) {
    if (!runs.empty() && runs.back().first == s) {
      ++runs.back().second;
    } else {
      runs.emplace_back(s, 1);
    }
  }
  const auto text = [&](const std::pair<NodeIndex, std::size_t> &run) {
    const model::Node &node = model_.nodes[run.first];
    const std::string where = model_.location(node.source);
    return " -> " + node.callee + " (" +
           (where.empty() ? "node " + std::to_string(node.id) : where) + ")" +
           (run.second > 1 ? " x " + std::to_string(run.second) : "");
  };
  std::string out = thread_of(ctx) == 0 ? (options_.entry.empty() ? model_.entry : options_.entry)
                                        : std::string("task");
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs.size() > 2 * kShown && i == kShown) {
      out += " -> ... (" + std::to_string(runs.size() - 2 * kShown) + " more) ...";
      i = runs.size() - kShown - 1;
      continue;
    }
    out += text(runs[i]);
  }
  return out;
}

void Engine::depth_exceeded(std::uint32_t ctx, NodeIndex site) {
  throw Error(ErrorKind::Model,
              "model '" + model_.name + "': the call depth limit max_depth=" +
                  std::to_string(options_.max_depth) + " is exceeded on rank " +
                  std::to_string(rank_of(ctx)) + ": " + call_chain(ctx, site) +
                  ". The recursion is deeper than the limit or does not end; raise "
                  "max_depth= (parjava predict --max-depth) if it is meant to be this deep");
}

// ---- deadlock ------------------------------------------------------------------------------

std::string Engine::describe_wait(std::uint32_t ctx) {
  const auto comm_name = [&](std::uint32_t context) {
    const std::uint32_t id = context / 2;
    return (context % 2 == 1 ? "collective traffic on " : "") +
           (id < comms_.size() ? comms_[id].name : std::string("?"));
  };
  switch (wait_[ctx]) {
  case WaitKind::Join:
    return "the tasks of its task group to finish";
  case WaitKind::Lock:
    return "a lock held by another thread";
  case WaitKind::Notify:
    return "every thread to reach the split-phase barrier (upc_notify)";
  case WaitKind::None:
    return "?";
  case WaitKind::Collective: {
    const CollectiveState &c = collective_[ctx];
    std::string from;
    for (const DirectRecv &r : direct_recvs_[ctx]) {
      if (!r.matched) {
        from += (from.empty() ? "rank " : ", rank ") + std::to_string(r.source);
      }
    }
    return "round " + std::to_string(phase_[ctx] >= 2 ? (phase_[ctx] - 2) / 3 : 0) + " of " +
           std::string(algorithm_name(c.algorithm)) + " " + std::string(collective_name(c.kind)) +
           ": a message from " + from + " (collective traffic on " +
           (c.comm < comms_.size() ? comms_[c.comm].name : std::string("?")) + ")";
  }
  default:
    break;
  }
  for (std::uint32_t r = owned_[ctx]; r != kNone; r = requests_[r].next_owned) {
    const Request &q = requests_[r];
    if (!q.awaited || q.complete) {
      continue;
    }
    std::string prefix;
    if (q.collective) {
      const CollectiveState &c = collective_[ctx];
      prefix = "round " + std::to_string(phase_[ctx] >= 2 ? (phase_[ctx] - 2) / 3 : 0) + " of " +
               std::string(algorithm_name(c.algorithm)) + " " +
               std::string(collective_name(c.kind)) + ": ";
    }
    if (q.kind == RequestKind::Send) {
      return prefix + "its message to rank " + std::to_string(q.peer_world) +
             " to be received (rendezvous)";
    }
    const std::string from =
        q.source == model::kAnySource ? "any rank" : "rank " + std::to_string(q.source);
    const std::string tag = q.tag == model::kAnyTag ? "any tag" : "tag " + std::to_string(q.tag);
    prefix += q.kind == RequestKind::Probe ? "a probe of a message from " : "a message from ";
    prefix += from + " (" + (q.collective ? "" : tag + ", ") + comm_name(q.context) + ")";
    return prefix;
  }
  return "requests that never complete";
}

void Engine::raise_deadlock() {
  std::vector<BlockedOperation> blocked;
  for (std::uint32_t ctx = 0; ctx < contexts_; ++ctx) {
    if (status_[ctx] != Status::Blocked) {
      continue;
    }
    BlockedOperation b;
    b.rank = rank_of(ctx);
    b.thread = thread_of(ctx);
    const Instruction ins = instruction_at(ctx);
    const model::Node &node = model_.nodes[ins.node];
    b.node = node.id;
    b.operation = ins.code == Code::Comm        ? std::string(model::operation_info(node.op).name)
                  : ins.code == Code::TaskGroup ? std::string("task_group")
                                                : std::string(model::node_kind_name(node.kind));
    b.location = model_.location(node.source);
    b.waiting_for = describe_wait(ctx);
    b.since = clock_[ctx] * 1e-9;
    blocked.push_back(std::move(b));
  }
  std::string message = "deadlock in model '" + model_.name + "' at " + std::to_string(processes_) +
                        " processes: " + std::to_string(blocked.size()) +
                        " logical thread(s) blocked, none can proceed:";
  const std::size_t shown = std::min<std::size_t>(blocked.size(), 16);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto &b = blocked[i];
    message += "\n  rank " + std::to_string(b.rank) +
               (b.thread != 0 ? " thread " + std::to_string(b.thread) : "") + ": " + b.operation +
               " (node " + std::to_string(b.node) + (b.location.empty() ? "" : ", " + b.location) +
               ") waits for " + b.waiting_for + " since t=" + std::to_string(b.since) + " s";
  }
  if (blocked.size() > shown) {
    message += "\n  ... and " + std::to_string(blocked.size() - shown) + " more";
  }
  message += guessed_peers_note("deadlock");
  throw DeadlockError(message, std::move(blocked));
}

// Never silently wrong: peers the model could not measure at this np are guesses, and a
// deadlock or an out-of-range peer of the guesses is not the program's (HPCCG estimated at np
// 2 and predicted at np 1 sent to rank 1).
std::string Engine::guessed_peers_note(std::string_view what) const {
  if (program_.guessed_peers.empty()) {
    return {};
  }
  std::string note = "\nthe program itself need not " + std::string(what) + ": the peers of " +
                     std::to_string(program_.guessed_peers.size()) +
                     " operation(s) are guesses at this np (estimate at np " +
                     std::to_string(processes_) + " to measure them):";
  const std::size_t listed = std::min<std::size_t>(program_.guessed_peers.size(), 8);
  for (std::size_t i = 0; i < listed; ++i) {
    note += "\n  " + program_.guessed_peers[i];
  }
  return note;
}

} // namespace parjava::interp
