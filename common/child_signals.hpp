// common/child_signals.hpp: the signal discipline around fork, shared by
// every process that forks (the broker's launcher, the ptyhost's spawn):
// block every signal across the fork, and in the child restore default
// dispositions and an empty mask before exec.
// Runs in: broker (launcher), ptyhost.
// Never: used between fork and exec for anything but these calls.
#pragma once

#include <csignal>

namespace signaltty {

// Every signal blocked for the scope: a fork inside it hands the child a
// fully blocked mask, so no handler of ours runs there before the reset.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_SETMASK, &all, &previous_);
  }
  ~SignalsBlocked() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

// In a child forked under SignalsBlocked: default dispositions, then an
// empty mask.
inline void reset_signals_in_child() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace signaltty
