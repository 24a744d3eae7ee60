// The LogGP(S) cost rules of one point-to-point message, exactly as LogGOPSim charges them
// (shared/anchors/loggopsim-semantics.md §3-§4). This is the small unit other engines call:
// the GOAL simulator (parjava/loggp/simulator.hpp) and the model interpreter both price a
// message with these functions, so the two agree to the nanosecond.
//
// Units: the rules are unit-free; parjava uses integer nanoseconds. All arithmetic is modulo
// 2^64 on purpose: LogGOPSim computes (size - 1) in uint64, so a size-0 message has
// size - 1 = 2^64 - 1, which behaves like -1 (a size-0 send *gives back* one O and one G).
// Reproducing that wrap-around is what makes size-0 schedules (Schedgen's allreduce_recdoub for
// P >= 16, allreduce_ring with d < P) agree with LogGOPSim (anchor §4, quirk 1).
#pragma once

#include <algorithm>
#include <cstdint>

namespace parjava::loggp {

using SimTime = std::uint64_t; // simulator time, integer nanoseconds by convention

// The LogGP network of LogGOPSim (anchor §3). Defaults are LogGOPSim's command-line defaults
// in nanoseconds. There is no P: the number of processes is the schedule's.
struct LogGPParameters {
  std::uint64_t L = 2500;  // latency: first byte reaches the receiver o + L after the send starts
  std::uint64_t o = 1500;  // CPU overhead per message, on the sending and the receiving CPU
  std::uint64_t g = 1000;  // NIC gap per message (send and receive gaps are separate)
  std::uint64_t G = 6;     // gap per byte, charged (size - 1) * G
  std::uint64_t O = 0;     // CPU overhead per byte, charged (size - 1) * O
  std::uint64_t S = 65535; // eager/rendezvous threshold: size <= S is eager, size > S rendezvous

  friend bool operator==(const LogGPParameters &, const LogGPParameters &) = default;
};

// (size - 1) modulo 2^64: the per-byte multiplier of every LogGP rule.
[[nodiscard]] constexpr std::uint64_t bytes_after_first(std::uint64_t size) noexcept {
  return size - 1U;
}

// Whether a message of `size` bytes uses the rendezvous protocol (size > S). Under rendezvous
// the *sender's* send completes only when the receiver matches it (anchor §4, "In words").
[[nodiscard]] constexpr bool is_rendezvous(const LogGPParameters &p, std::uint64_t size) noexcept {
  return size > p.S;
}

// When the sending CPU is free again after a send that started at t: t + o + (s-1)·O.
[[nodiscard]] constexpr SimTime send_cpu_free(const LogGPParameters &p, SimTime t,
                                              std::uint64_t size) noexcept {
  return t + p.o + bytes_after_first(size) * p.O;
}

// When the sending NIC may inject the next message after a send that started at t:
// t + g + (s-1)·G. This gap does not count towards a host's end time (anchor §4, Output).
[[nodiscard]] constexpr SimTime send_nic_free(const LogGPParameters &p, SimTime t,
                                              std::uint64_t size) noexcept {
  return t + p.g + bytes_after_first(size) * p.G;
}

// When the message's first byte is at the receiver, for a send that started at t: t + o + L.
[[nodiscard]] constexpr SimTime message_arrival(const LogGPParameters &p, SimTime t) noexcept {
  return t + p.o + p.L;
}

// When the receiving CPU is free again after handling a message from time t:
// t + o + max((s-1)·O, (s-1)·G), the max taken on the unsigned (wrapped) products. The CPU is
// charged whether or not a receive is posted: unexpected messages are charged on arrival.
[[nodiscard]] constexpr SimTime receive_cpu_free(const LogGPParameters &p, SimTime t,
                                                 std::uint64_t size) noexcept {
  const std::uint64_t s1 = bytes_after_first(size);
  return t + p.o + std::max(s1 * p.O, s1 * p.G);
}

// When the receiving NIC may accept the next message after one handled from time t:
// t + g + (s-1)·G.
[[nodiscard]] constexpr SimTime receive_nic_free(const LogGPParameters &p, SimTime t,
                                                 std::uint64_t size) noexcept {
  return t + p.g + bytes_after_first(size) * p.G;
}

} // namespace parjava::loggp
