// Ctrl-C during a CPU launch (tile interpreter, SIMT simulator). The launch runs in C++ with
// the GIL released, where Python's own SIGINT handler only sets a flag that nothing reads
// until the launch ends, so a long kernel could not be stopped. While a SigintScope lives,
// SIGINT sets tilec's interrupt flag (support/Interrupt.h) instead: the executors poll it and
// stop, and raise_if_interrupted() turns it into KeyboardInterrupt.
#pragma once

namespace tilec::python {

class SigintScope {
public:
  SigintScope();  // with the GIL held
  ~SigintScope(); // restores the previous handler (the last of nested scopes does)
  SigintScope(const SigintScope &) = delete;
  SigintScope &operator=(const SigintScope &) = delete;
};

// With the GIL: raises KeyboardInterrupt (throws nb::python_error) when SIGINT came during
// the launch, clearing the flag.
void raise_if_interrupted();

} // namespace tilec::python
