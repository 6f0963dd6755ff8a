#include "Interrupt.h"

#include <nanobind/nanobind.h>

#include <mutex>

#include "support/Interrupt.h"

#if defined(__unix__) || defined(__APPLE__)
#include <csignal>
#define TILEC_HAVE_SIGACTION 1
#endif

namespace tilec::python {

namespace {
std::mutex g_mu;
int g_depth = 0; // live scopes (launches from several threads may overlap)
#ifdef TILEC_HAVE_SIGACTION
struct sigaction g_previous;
bool g_installed = false;
extern "C" void on_sigint(int) { request_interrupt(); }
#endif
} // namespace

SigintScope::SigintScope() {
  std::lock_guard<std::mutex> g(g_mu);
  if (g_depth++ > 0)
    return;
  clear_interrupt();
#ifdef TILEC_HAVE_SIGACTION
  struct sigaction now {};
  if (sigaction(SIGINT, nullptr, &now) != 0 || now.sa_handler == SIG_IGN)
    return; // SIGINT ignored by the host: leave it so
  struct sigaction ours {};
  ours.sa_handler = on_sigint;
  sigemptyset(&ours.sa_mask);
  g_installed = sigaction(SIGINT, &ours, &g_previous) == 0;
#endif
}

SigintScope::~SigintScope() {
  std::lock_guard<std::mutex> g(g_mu);
  if (--g_depth > 0)
    return;
#ifdef TILEC_HAVE_SIGACTION
  if (g_installed)
    sigaction(SIGINT, &g_previous, nullptr);
  g_installed = false;
#endif
}

void raise_if_interrupted() {
  if (!interrupted())
    return;
  clear_interrupt();
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw nanobind::python_error();
}

} // namespace tilec::python
