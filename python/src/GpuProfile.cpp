// The profiler's kernel samples (src/runtime/LaunchProfile.h) for python/tilec/profiler:
// on/off, the context id of the open scopes, and the drain that reads the samples' times.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "Gpu.h"
#include "runtime/LaunchProfile.h"

namespace tilec::python::gpu {

namespace profile = runtime::profile;

void bind_gpu_profile(nb::module_ &m) {
  m.def("gpu_profile_enable", &profile::enable, nb::arg("on"),
        "Turns the sampling of GPU launches on or off (off costs launches nothing).");
  m.def("gpu_profile_context", &profile::set_context, nb::arg("id"),
        "The context id later samples carry (the profiler's open scopes and sessions).");
  m.def("gpu_profile_count", &profile::count, "GPU launches sampled since the process began.");
  m.def(
      "gpu_profile_drain",
      [] {
        std::vector<profile::Sample> samples;
        {
          nb::gil_scoped_release release; // waits for the sampled kernels to end
          samples = profile::drain();
        }
        nb::list out;
        for (const profile::Sample &s : samples)
          out.append(nb::make_tuple(*s.kernel, s.device, s.context, s.start_ns, s.ns));
        return out;
      },
      "The samples since the last drain, oldest first, after their kernels ended: "
      "(kernel, device, context, host start ns, device ns or -1 when untimed).");
}

} // namespace tilec::python::gpu
